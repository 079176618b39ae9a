"""shared-testing: the iclr2025-papers pytest plugin and the helpers its packages' tests share."""

from shared_testing.battery import MethodBattery, MethodCase
from shared_testing.conformance import ConformanceSuite, run_cli, validate_results
from shared_testing.determinism import assert_identical, run_twice
from shared_testing.gradients import assert_gradient, finite_difference_grad
from shared_testing.hygiene import hygiene_violations
from shared_testing.offline import NetworkAccessError
from shared_testing.readme import readme_python_blocks, run_readme

__all__ = [
    "ConformanceSuite",
    "MethodBattery",
    "MethodCase",
    "NetworkAccessError",
    "assert_gradient",
    "assert_identical",
    "finite_difference_grad",
    "hygiene_violations",
    "readme_python_blocks",
    "run_cli",
    "run_readme",
    "run_twice",
    "validate_results",
]
