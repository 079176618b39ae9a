"""The console script through the shared conformance battery."""

from __future__ import annotations

from shared_testing.conformance import ConformanceSuite


class TestConformance(ConformanceSuite):
    package = "deep-fourier"
    module = "deep_fourier"
    known_hygiene_violations = frozenset()
