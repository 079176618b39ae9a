"""ntk_divergence: analytic and empirical NTKs of fully connected and residual networks, GD under CE and MSE.

Reproduces "Divergence of Neural Tangent Kernel in Classification Problems" (ICLR 2025, OpenReview
VEJzjAvaIy; arXiv 2504.11130).
"""

from typing import TYPE_CHECKING

import paperkit

PUBLIC = {
    "ACTIVATIONS": "kernels",
    "fc_ntk": "kernels",
    "relu_expectations": "kernels",
    "erf_expectations": "kernels",
    "resnet_ntk": "kernels",
    "FCN": "models",
    "ResNet": "models",
    "ntk_gram": "backprop",
    "numpy_params": "backprop",
    "empirical_ntk": "empirical",
    "jacobian": "empirical",
    "param_distance": "empirical",
    "LOSSES": "training",
    "Trajectory": "training",
    "train_gd": "training",
    "loss_grad": "training",
    "output_loss": "training",
    "margins": "training",
    "log_checkpoints": "training",
    "ARCHS": "methods",
    "METHODS": "methods",
    "build": "methods",
    "limiting_ntk": "methods",
    "run_method": "methods",
    "kernel_gd": "methods",
    "digits": "data",
    "synthetic_sphere": "data",
    "pd_stress_set": "data",
    "loglog_slope": "analysis",
    "semilog_slope": "analysis",
}
__getattr__, __dir__, __all__ = paperkit.public_api(__name__, PUBLIC)

if TYPE_CHECKING:
    from ntk_divergence.analysis import loglog_slope, semilog_slope  # noqa: F401
    from ntk_divergence.backprop import ntk_gram, numpy_params  # noqa: F401
    from ntk_divergence.data import digits, pd_stress_set, synthetic_sphere  # noqa: F401
    from ntk_divergence.empirical import empirical_ntk, jacobian, param_distance  # noqa: F401
    from ntk_divergence.kernels import (  # noqa: F401
        ACTIVATIONS,
        erf_expectations,
        fc_ntk,
        relu_expectations,
        resnet_ntk,
    )
    from ntk_divergence.methods import ARCHS, METHODS, build, kernel_gd, limiting_ntk, run_method  # noqa: F401
    from ntk_divergence.models import FCN, ResNet  # noqa: F401
    from ntk_divergence.training import (  # noqa: F401
        LOSSES,
        Trajectory,
        log_checkpoints,
        loss_grad,
        margins,
        output_loss,
        train_gd,
    )

__version__ = paperkit.package_version("iclr25-ntk-divergence")
