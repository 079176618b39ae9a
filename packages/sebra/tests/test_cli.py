"""The console script through the shared conformance battery."""

from __future__ import annotations

from shared_testing.conformance import ConformanceSuite


class TestConformance(ConformanceSuite):
    package = "sebra"
    module = "sebra"
    known_hygiene_violations = frozenset()
    # Quick scale (RESULTS.md, "Quick run"): 1,000 images and 8 contrastive epochs leave ERM and Sebra at
    # the floor of the worst group (0.004 / 0.012) with 2 seeds; the full run passes all four.
    known_failing_quick_claims = frozenset(
        {"debias-balanced", "sebra-vs-jtt", "ranking-matters", "ranking-vs-erm-rank"}
    )
