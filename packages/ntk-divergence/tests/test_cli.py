"""The console script through the shared conformance battery."""

from __future__ import annotations

from shared_testing.conformance import ConformanceSuite


class TestConformance(ConformanceSuite):
    package = "ntk-divergence"
    module = "ntk_divergence"
    known_hygiene_violations = frozenset()
    # Quick scale (RESULTS.md): under MSE seed 1 is still converging at t = S/10 = 2000; the ResNet and
    # digits cases run 5e3 / 2e3 steps, too short for CE's log t growth to reach 3x (5x) the MSE values
    # (the ResNet and binary-digits ones pass in the full run; the 10-class ones are diagnosed there).
    known_failing_quick_claims = frozenset({
        "mse-lazy", "resnet-ce-vs-mse-params", "digits-binary-ce-vs-mse-params",
        "digits-10-ce-vs-mse-params", "digits-10-ce-kernel-drift",
    })  # fmt: skip
