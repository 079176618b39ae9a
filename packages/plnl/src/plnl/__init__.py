"""plnl: complementary-label learning with positive label guessing and negative label enhancement.

Reproduces "Complementary Label Learning with Positive Label Guessing and Negative Label Enhancement"
(ICLR 2025, OpenReview LPRxGZ7Oax; official code github.com/yhli-ml/PLNL).
"""

from typing import TYPE_CHECKING

import paperkit

PUBLIC = {
    "check_complementary": "labels",
    "check_labels": "labels",
    "uniform_complementary": "labels",
    "subset_complementary": "labels",
    "subset_weights": "labels",
    "LOSSES": "losses",
    "scl_log": "losses",
    "scl_exp": "losses",
    "ub_log": "losses",
    "ub_exp": "losses",
    "pc_loss": "losses",
    "forward_loss": "losses",
    "nn_loss": "losses",
    "free_loss": "losses",
    "supervised_bce": "losses",
    "consistency_target": "losses",
    "consistency_kl": "losses",
    "positive_label_guessing": "recovery",
    "knn_indices": "recovery",
    "intensity": "recovery",
    "nle_counts": "recovery",
    "negative_label_enhancement": "recovery",
    "TrainConfig": "training",
    "LabelState": "training",
    "plnl_epoch": "training",
    "PLNLConfig": "training",
    "PLNLFit": "training",
    "fit_plnl": "training",
    "train_cll": "training",
    "predict": "training",
    "weak_view": "training",
    "strong_view": "training",
    "METHODS": "methods",
    "Fit": "methods",
    "MethodInfo": "methods",
    "build_model": "methods",
    "run_method": "methods",
    "CLLData": "data",
    "cll_digits": "data",
}
__getattr__, __dir__, __all__ = paperkit.public_api(__name__, PUBLIC)

if TYPE_CHECKING:
    from plnl.data import CLLData, cll_digits  # noqa: F401
    from plnl.labels import (  # noqa: F401
        check_complementary,
        check_labels,
        subset_complementary,
        subset_weights,
        uniform_complementary,
    )
    from plnl.losses import (  # noqa: F401
        LOSSES,
        consistency_kl,
        consistency_target,
        forward_loss,
        free_loss,
        nn_loss,
        pc_loss,
        scl_exp,
        scl_log,
        supervised_bce,
        ub_exp,
        ub_log,
    )
    from plnl.methods import METHODS, Fit, MethodInfo, build_model, run_method  # noqa: F401
    from plnl.recovery import (  # noqa: F401
        intensity,
        knn_indices,
        negative_label_enhancement,
        nle_counts,
        positive_label_guessing,
    )
    from plnl.training import (  # noqa: F401
        LabelState,
        PLNLConfig,
        PLNLFit,
        TrainConfig,
        fit_plnl,
        plnl_epoch,
        predict,
        strong_view,
        train_cll,
        weak_view,
    )

__version__ = paperkit.package_version("iclr25-plnl")
