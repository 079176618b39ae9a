"""synthdata_ggmi: the Gaussian-mixture model of synthetic-data generation, KL estimators with exact
densities, discrete information identities and GGMI, and a tiny-LM analogue.

Reproduces "Towards a Theoretical Understanding of Synthetic Data in LLM Post-Training: A Reverse-Bottleneck
Perspective" (Gan, Liu; ICLR 2025; arXiv 2410.01720).
"""

from typing import TYPE_CHECKING

import paperkit

if TYPE_CHECKING:  # the public names, once: type checkers read them, paperkit.public_api parses them
    from synthdata_ggmi.analysis import spearman_ci
    from synthdata_ggmi.definitions import ggmi, information_gain, mi_generalization_bound
    from synthdata_ggmi.divergence import ESTIMATORS, KLEstimate, histogram_kl, kl_estimate, mc_kl
    from synthdata_ggmi.gmm import GMMSpec, fit_gmm, gmm_log_pdf, mixture_label_mi, sample_gmm
    from synthdata_ggmi.info import (
        conditional_mi,
        entropy,
        kl,
        markov_chain,
        mutual_information,
        pinsker_bound,
        tv,
        tv_decomposition,
    )
    from synthdata_ggmi.lm_analogue import LMConfig, make_facts, score_facts, student_on
    from synthdata_ggmi.methods import METHODS, DensityFit, run_method
    from synthdata_ggmi.simulation import (
        Protocol,
        Sweep,
        World,
        anchor_samples,
        draw_world,
        fit_models,
        generator_m,
        ground_truth,
        kl_gaps,
        random_components,
        sweep,
    )

__getattr__, __dir__, __all__ = paperkit.public_api(__name__)

__version__ = paperkit.package_version("iclr25-synthdata-ggmi")
