"""The console script, through the shared conformance battery."""

from __future__ import annotations

from shared_testing.conformance import ConformanceSuite


class TestConformance(ConformanceSuite):
    package = "genre"
    module = "genre"
    # fail honestly at quick scale (README: GenRe costs 1.81× NNR against the spec's ≤ 1.15)
    known_failing_quick_claims = frozenset({"cost-vs-nnr-moons"})
