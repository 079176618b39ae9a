"""The console script through the shared conformance battery."""

from __future__ import annotations

from shared_testing.conformance import ConformanceSuite


class TestConformance(ConformanceSuite):
    package = "ntk-divergence"
    module = "ntk_divergence"
    known_hygiene_violations = frozenset()
    # Under MSE one seed (1) is still converging at t = S/10 = 2000 at quick scale (RESULTS.md).
    known_failing_quick_claims = frozenset({"mse-lazy"})
