"""sebra: self-guided bias ranking (steered ERM) and rank-aware contrastive debiasing, with baselines.

Reproduces "Sebra: Debiasing through Self-Guided Bias Ranking" (ICLR 2025; arXiv 2501.18277) at small scale
on synthetic two-shortcut digit images.
"""

from typing import TYPE_CHECKING

import paperkit

PUBLIC = {
    "Shortcuts": "data",
    "make_digit_urbancars": "data",
    "render": "data",
    "RankConfig": "ranking",
    "RankResult": "ranking",
    "erm_rank": "ranking",
    "sebra_rank": "ranking",
    "upweighted_ce": "ranking",
    "rank_contrastive_loss": "contrastive",
    "sample_pairs": "contrastive",
    "DebiasConfig": "debias",
    "sebra_debias": "debias",
    "stage2_loss": "debias",
    "Net": "training",
    "build_net": "training",
    "predict_proba": "training",
    "train_classifier": "training",
    "METHODS": "methods",
    "Fitted": "methods",
    "MethodConfig": "methods",
    "run_method": "methods",
    "group_accuracies": "metrics",
    "rank_quality": "metrics",
}
__getattr__, __dir__, __all__ = paperkit.public_api(__name__, PUBLIC)

if TYPE_CHECKING:
    from sebra.contrastive import rank_contrastive_loss, sample_pairs  # noqa: F401
    from sebra.data import Shortcuts, make_digit_urbancars, render  # noqa: F401
    from sebra.debias import DebiasConfig, sebra_debias, stage2_loss  # noqa: F401
    from sebra.methods import METHODS, Fitted, MethodConfig, run_method  # noqa: F401
    from sebra.metrics import group_accuracies, rank_quality  # noqa: F401
    from sebra.ranking import RankConfig, RankResult, erm_rank, sebra_rank, upweighted_ce  # noqa: F401
    from sebra.training import Net, build_net, predict_proba, train_classifier  # noqa: F401

__version__ = paperkit.package_version("iclr25-sebra")
