"""The console script, through the shared conformance battery."""

from __future__ import annotations

from shared_testing.conformance import ConformanceSuite


class TestConformance(ConformanceSuite):
    package = "disk-dp"
    module = "disk_dp"
    # fail honestly at quick scale (README: DiSK ties DP-SGD on digits and on the quadratic)
    known_failing_quick_claims = frozenset({"disk-sgd-beats-dp-sgd-eps1", "quadratic-disk-vs-dp-sgd"})
