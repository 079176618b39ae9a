"""The console script through the shared conformance battery."""

from __future__ import annotations

from shared_testing.conformance import ConformanceSuite


class TestConformance(ConformanceSuite):
    package = "attention-hypernet"
    module = "attention_hypernet"
    known_hygiene_violations = frozenset()
    # At quick scale (100 steps) no mixer fits the task yet: the gate and the claims on it fail (RESULTS.md).
    known_failing_quick_claims = frozenset({"gate-substrate", "hyla-ood-vs-linear", "latent-probe"})
