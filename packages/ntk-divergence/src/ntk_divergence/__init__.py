"""ntk_divergence: analytic and empirical NTKs of fully connected networks, and GD training under CE and MSE.

Reproduces "Divergence of Neural Tangent Kernel in Classification Problems" (ICLR 2025, OpenReview
VEJzjAvaIy; arXiv 2504.11130).
"""

from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING

import paperkit

PUBLIC = {
    "ACTIVATIONS": "kernels",
    "fc_ntk": "kernels",
    "relu_expectations": "kernels",
    "erf_expectations": "kernels",
    "FCN": "models",
    "empirical_ntk": "empirical",
    "jacobian": "empirical",
    "param_distance": "empirical",
    "LOSSES": "training",
    "Trajectory": "training",
    "train_gd": "training",
    "fcn_loss_grad": "training",
    "log_checkpoints": "training",
    "METHODS": "methods",
    "run_method": "methods",
    "kernel_gd": "methods",
    "synthetic_sphere": "data",
    "pd_stress_set": "data",
    "loglog_slope": "analysis",
    "semilog_slope": "analysis",
}
__getattr__, __dir__, __all__ = paperkit.public_api(__name__, PUBLIC)

if TYPE_CHECKING:
    from ntk_divergence.analysis import loglog_slope, semilog_slope  # noqa: F401
    from ntk_divergence.data import pd_stress_set, synthetic_sphere  # noqa: F401
    from ntk_divergence.empirical import empirical_ntk, jacobian, param_distance  # noqa: F401
    from ntk_divergence.kernels import ACTIVATIONS, erf_expectations, fc_ntk, relu_expectations  # noqa: F401
    from ntk_divergence.methods import METHODS, kernel_gd, run_method  # noqa: F401
    from ntk_divergence.models import FCN  # noqa: F401
    from ntk_divergence.training import LOSSES, Trajectory, fcn_loss_grad, log_checkpoints, train_gd  # noqa: F401

try:
    __version__ = version("iclr25-ntk-divergence")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0"
