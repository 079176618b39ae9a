"""The console script through the shared conformance battery (brian2 and torch stay unloaded by --help)."""

from __future__ import annotations

from shared_testing.conformance import ConformanceSuite


class TestConformance(ConformanceSuite):
    package = "barrel-snn"
    module = "barrel_snn"
    light_start_without = ("torch", "brian2")
