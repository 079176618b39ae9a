"""sebra: self-guided bias ranking (steered ERM) and rank-aware contrastive debiasing, with baselines.

Reproduces "Sebra: Debiasing through Self-Guided Bias Ranking" (ICLR 2025; arXiv 2501.18277) at small scale
on synthetic two-shortcut digit images.
"""

from typing import TYPE_CHECKING

import paperkit

if TYPE_CHECKING:  # the public names, once: type checkers read them, paperkit.public_api parses them
    from sebra.contrastive import rank_contrastive_loss, sample_pairs
    from sebra.data import Shortcuts, make_digit_urbancars, render
    from sebra.debias import DebiasConfig, sebra_debias, stage2_loss
    from sebra.methods import METHODS, Fitted, MethodConfig, run_method
    from sebra.metrics import group_accuracies, rank_quality
    from sebra.ranking import RankConfig, RankResult, erm_rank, sebra_rank, upweighted_ce
    from sebra.training import Net, build_net, predict_proba, train_classifier

__getattr__, __dir__, __all__ = paperkit.public_api(__name__)

__version__ = paperkit.package_version("iclr25-sebra")
