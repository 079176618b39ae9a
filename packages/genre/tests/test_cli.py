"""The console script, through the shared conformance battery."""

from __future__ import annotations

from shared_testing.conformance import ConformanceSuite


class TestConformance(ConformanceSuite):
    package = "genre"
    module = "genre"
    # fails honestly at quick scale (RESULTS.md: NNR-valid, the nearest training point h accepts, is
    # valid and on the manifold for every negative; GenRe for 91 %)
    known_failing_quick_claims = frozenset({"tradeoff-vs-NNR-valid-moons"})
