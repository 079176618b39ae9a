"""The console script through the shared conformance battery."""

from __future__ import annotations

from shared_testing.conformance import ConformanceSuite


class TestConformance(ConformanceSuite):
    package = "asb"
    module = "asb"
    known_hygiene_violations = frozenset()
    known_failing_quick_claims = frozenset()
