"""The console script, through the shared conformance battery."""

from __future__ import annotations

from shared_testing.conformance import ConformanceSuite


class TestConformance(ConformanceSuite):
    package = "disk-dp"
    module = "disk_dp"
    # fails honestly at quick scale (README / RESULTS.md: DiSK ties DP-SGD on digits, +0.09 points)
    known_failing_quick_claims = frozenset({"disk-sgd-beats-dp-sgd-eps1"})
