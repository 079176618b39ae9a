"""arat: asymmetric representation-regularised adversarial training (ARAT) with split BatchNorm.

Reproduces "Rethinking Invariance Regularization in Adversarial Training to Improve Robustness-Accuracy
Trade-off" (Waseda, Chang, Echizen; ICLR 2025; arXiv 2402.14648; official code futakw/AR-AT).
"""

from typing import TYPE_CHECKING

import paperkit

PUBLIC = {
    "BRANCHES": "layers",
    "SplitBatchNorm2d": "layers",
    "split_batchnorm": "layers",
    "set_branch": "layers",
    "use_branch": "layers",
    "branch_of": "layers",
    "has_split_bn": "layers",
    "tapped_forward": "features",
    "layer_names": "features",
    "Predictor": "predictor",
    "predictors": "predictor",
    "cosine_distance": "losses",
    "symmetric_invariance": "losses",
    "asymmetric_invariance": "losses",
    "auto_balance_weights": "losses",
    "trades_kl": "losses",
    "cw_margin_loss": "losses",
    "pgd": "attacks",
    "apgd_ce": "attacks",
    "backbone": "models",
    "default_layers": "models",
    "TrainConfig": "training",
    "Trained": "training",
    "train": "training",
    "lr_at": "training",
    "EvalConfig": "evaluate",
    "accuracy": "evaluate",
    "robust_accuracy": "evaluate",
    "gradient_conflict": "evaluate",
    "METHODS": "methods",
    "MethodInfo": "methods",
    "fit": "methods",
    "method_config": "methods",
    "noisy_background": "data",
}
__getattr__, __dir__, __all__ = paperkit.public_api(__name__, PUBLIC)

if TYPE_CHECKING:
    from arat.attacks import apgd_ce, pgd  # noqa: F401
    from arat.data import noisy_background  # noqa: F401
    from arat.evaluate import EvalConfig, accuracy, gradient_conflict, robust_accuracy  # noqa: F401
    from arat.features import layer_names, tapped_forward  # noqa: F401
    from arat.layers import (  # noqa: F401
        BRANCHES,
        SplitBatchNorm2d,
        branch_of,
        has_split_bn,
        set_branch,
        split_batchnorm,
        use_branch,
    )
    from arat.losses import (  # noqa: F401
        asymmetric_invariance,
        auto_balance_weights,
        cosine_distance,
        cw_margin_loss,
        symmetric_invariance,
        trades_kl,
    )
    from arat.methods import METHODS, MethodInfo, fit, method_config  # noqa: F401
    from arat.models import backbone, default_layers  # noqa: F401
    from arat.predictor import Predictor, predictors  # noqa: F401
    from arat.training import TrainConfig, Trained, lr_at, train  # noqa: F401

__version__ = paperkit.package_version("iclr25-arat")
