"""The console script through the shared conformance battery."""

from __future__ import annotations

from shared_testing.conformance import ConformanceSuite


class TestConformance(ConformanceSuite):
    package = "arat"
    module = "arat"
    known_hygiene_violations = frozenset()
    known_failing_quick_claims = frozenset()  # set from the quick run (RESULTS.md)
