"""genre: generative algorithmic recourse (GenRe) and its baselines.

Reproduces "From Search to Sampling: Generative Models for Robust Algorithmic Recourse" (Garg,
Nagalapatti, Sarawagi; ICLR 2025, arXiv 2505.07351). Names are imported on first use (PEP 562), so the
console script answers ``--help`` and ``--version`` without importing torch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import paperkit

if TYPE_CHECKING:  # the public names, once: type checkers read them, paperkit.public_api parses them
    from genre.baselines import NNR, ROAR, GrowingSpheres, Wachter
    from genre.classifiers import MLPClassifier, as_proba, as_torch_proba, gold_model
    from genre.data import Dataset, load_breast_cancer_semisynthetic, load_moons
    from genre.metrics import (
        cost_l1,
        evaluate,
        fit_lof,
        gold_prob,
        immutable_violation,
        lof_inliers,
        validity,
    )
    from genre.models import PairTransformer, bin_edges, soft_targets
    from genre.pairs import PairDistribution, PairSampler, pair_distribution, pair_weights_dense
    from genre.recourse import GenRe


__version__ = paperkit.package_version("iclr25-genre")


__getattr__, __dir__, __all__ = paperkit.public_api(__name__)
