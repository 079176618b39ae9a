"""synthdata_ggmi: the Gaussian-mixture model of synthetic-data generation, KL estimators with exact
densities, discrete information identities and GGMI, and a tiny-LM analogue.

Reproduces "Towards a Theoretical Understanding of Synthetic Data in LLM Post-Training: A Reverse-Bottleneck
Perspective" (Gan, Liu; ICLR 2025; arXiv 2410.01720).
"""

from typing import TYPE_CHECKING

import paperkit

PUBLIC = {
    "GMMSpec": "gmm",
    "fit_gmm": "gmm",
    "gmm_log_pdf": "gmm",
    "sample_gmm": "gmm",
    "mixture_label_mi": "gmm",
    "ESTIMATORS": "divergence",
    "KLEstimate": "divergence",
    "kl_estimate": "divergence",
    "histogram_kl": "divergence",
    "mc_kl": "divergence",
    "Protocol": "simulation",
    "World": "simulation",
    "Sweep": "simulation",
    "draw_world": "simulation",
    "fit_models": "simulation",
    "generator_m": "simulation",
    "ground_truth": "simulation",
    "anchor_samples": "simulation",
    "random_components": "simulation",
    "kl_gaps": "simulation",
    "sweep": "simulation",
    "entropy": "info",
    "kl": "info",
    "tv": "info",
    "mutual_information": "info",
    "conditional_mi": "info",
    "markov_chain": "info",
    "tv_decomposition": "info",
    "pinsker_bound": "info",
    "ggmi": "definitions",
    "information_gain": "definitions",
    "mi_generalization_bound": "definitions",
    "METHODS": "methods",
    "DensityFit": "methods",
    "run_method": "methods",
    "spearman_ci": "analysis",
    "LMConfig": "lm_analogue",
    "make_facts": "lm_analogue",
    "student_on": "lm_analogue",
    "score_facts": "lm_analogue",
}
__getattr__, __dir__, __all__ = paperkit.public_api(__name__, PUBLIC)

if TYPE_CHECKING:
    from synthdata_ggmi.analysis import spearman_ci  # noqa: F401
    from synthdata_ggmi.definitions import ggmi, information_gain, mi_generalization_bound  # noqa: F401
    from synthdata_ggmi.divergence import ESTIMATORS, KLEstimate, histogram_kl, kl_estimate, mc_kl  # noqa: F401
    from synthdata_ggmi.gmm import GMMSpec, fit_gmm, gmm_log_pdf, mixture_label_mi, sample_gmm  # noqa: F401
    from synthdata_ggmi.info import (  # noqa: F401
        conditional_mi,
        entropy,
        kl,
        markov_chain,
        mutual_information,
        pinsker_bound,
        tv,
        tv_decomposition,
    )
    from synthdata_ggmi.lm_analogue import LMConfig, make_facts, score_facts, student_on  # noqa: F401
    from synthdata_ggmi.methods import METHODS, DensityFit, run_method  # noqa: F401
    from synthdata_ggmi.simulation import (  # noqa: F401
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

__version__ = paperkit.package_version("iclr25-synthdata-ggmi")
