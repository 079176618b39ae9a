"""ntk_divergence: analytic and empirical NTKs of fully connected and residual networks, GD under CE and MSE.

Reproduces "Divergence of Neural Tangent Kernel in Classification Problems" (ICLR 2025, OpenReview
VEJzjAvaIy; arXiv 2504.11130).
"""

from typing import TYPE_CHECKING

import paperkit

if TYPE_CHECKING:  # the public names, once: type checkers read them, paperkit.public_api parses them
    from ntk_divergence.analysis import loglog_slope, semilog_slope
    from ntk_divergence.backprop import ntk_gram, numpy_params
    from ntk_divergence.data import digits, pd_stress_set, synthetic_sphere
    from ntk_divergence.empirical import empirical_ntk, jacobian, param_distance
    from ntk_divergence.kernels import (
        ACTIVATIONS,
        erf_expectations,
        fc_ntk,
        relu_expectations,
        resnet_ntk,
    )
    from ntk_divergence.methods import ARCHS, METHODS, build, kernel_gd, limiting_ntk, run_method
    from ntk_divergence.models import FCN, ResNet
    from ntk_divergence.training import (
        LOSSES,
        Trajectory,
        log_checkpoints,
        loss_grad,
        margins,
        output_loss,
        train_gd,
    )

__getattr__, __dir__, __all__ = paperkit.public_api(__name__)

__version__ = paperkit.package_version("iclr25-ntk-divergence")
