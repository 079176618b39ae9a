"""The console script through the shared conformance battery."""

from __future__ import annotations

from shared_testing.conformance import ConformanceSuite


class TestConformance(ConformanceSuite):
    package = "synthdata-ggmi"
    module = "synthdata_ggmi"
    known_hygiene_violations = frozenset()
    # The official per-sample-grid histogram does not give a monotone J sweep at 3 points (spec claim 2:
    # "report if not"; RESULTS.md).
    known_failing_quick_claims = frozenset({"gap-rises-with-J-histogram"})
