"""plnl: complementary-label learning with positive label guessing and negative label enhancement.

Reproduces "Complementary Label Learning with Positive Label Guessing and Negative Label Enhancement"
(ICLR 2025, OpenReview LPRxGZ7Oax; official code github.com/yhli-ml/PLNL).
"""

from typing import TYPE_CHECKING

import paperkit

if TYPE_CHECKING:  # the public names, once: type checkers read them, paperkit.public_api parses them
    from plnl.data import CLLData, cll_digits
    from plnl.labels import (
        check_complementary,
        check_labels,
        subset_complementary,
        subset_weights,
        uniform_complementary,
    )
    from plnl.losses import (
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
    from plnl.methods import METHODS, Fit, MethodInfo, build_model, run_method
    from plnl.recovery import (
        intensity,
        knn_indices,
        negative_label_enhancement,
        nle_counts,
        positive_label_guessing,
    )
    from plnl.training import (
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

__getattr__, __dir__, __all__ = paperkit.public_api(__name__)

__version__ = paperkit.package_version("iclr25-plnl")
