"""arat: asymmetric representation-regularised adversarial training (ARAT) with split BatchNorm.

Reproduces "Rethinking Invariance Regularization in Adversarial Training to Improve Robustness-Accuracy
Trade-off" (Waseda, Chang, Echizen; ICLR 2025; arXiv 2402.14648; official code futakw/AR-AT).
"""

from typing import TYPE_CHECKING

import paperkit

if TYPE_CHECKING:  # the public names, once: type checkers read them, paperkit.public_api parses them
    from arat.attacks import apgd_ce, pgd
    from arat.data import noisy_background
    from arat.evaluate import EvalConfig, accuracy, gradient_conflict, robust_accuracy
    from arat.features import layer_names, tapped_forward
    from arat.layers import (
        BRANCHES,
        SplitBatchNorm2d,
        branch_of,
        has_split_bn,
        set_branch,
        split_batchnorm,
        use_branch,
    )
    from arat.losses import (
        asymmetric_invariance,
        auto_balance_weights,
        cosine_distance,
        cw_margin_loss,
        symmetric_invariance,
        trades_kl,
    )
    from arat.methods import METHODS, MethodInfo, fit, method_config
    from arat.models import backbone, default_layers
    from arat.predictor import Predictor, predictors
    from arat.training import TrainConfig, Trained, eps_at, lr_at, train

__getattr__, __dir__, __all__ = paperkit.public_api(__name__)

__version__ = paperkit.package_version("iclr25-arat")
