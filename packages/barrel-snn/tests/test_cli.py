"""The console script through the shared conformance battery (brian2 and torch stay unloaded by --help)."""

from __future__ import annotations

from typing import ClassVar

from shared_testing.conformance import ConformanceSuite


class TestConformance(ConformanceSuite):
    package = "barrel-snn"
    module = "barrel_snn"
    light_start_without = ("torch", "brian2")
    # Quick run at seed 0 (2026-12-01, main before and after the issue-18 split, identical): the deprivation
    # drop is 0.011 against the frozen >= 0.015 (calibrated on 2026-11-29's 0.033); README, RESULTS.md.
    known_failing_quick_claims: ClassVar[frozenset[str]] = frozenset({"deprivation-lowers-accuracy"})
