"""shared-testing: the iclr2025-papers pytest plugin and the helpers its packages' tests share."""

from shared_testing.conformance import ConformanceSuite, run_cli, validate_results
from shared_testing.determinism import assert_identical, run_twice
from shared_testing.gradients import assert_gradient, finite_difference_grad
from shared_testing.offline import NetworkAccessError

__all__ = [
    "ConformanceSuite",
    "NetworkAccessError",
    "assert_gradient",
    "assert_identical",
    "finite_difference_grad",
    "run_cli",
    "run_twice",
    "validate_results",
]
