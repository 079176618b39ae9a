"""map_palette: MAP (Multi-Human-Value Alignment Palette) as a constrained problem solved by its dual.

Reproduces "MAP: Multi-Human-Value Alignment Palette" (Wang et al., ICLR 2025; arXiv 2410.19198):
the dual and its solvers, the LP feasibility oracle, sequential alignment, palettes, value rewards,
MAP decoding of a tiny LM's samples, and the baselines.
"""

from typing import TYPE_CHECKING

import paperkit

if TYPE_CHECKING:  # the public names, once: type checkers read them, paperkit.public_api parses them
    from map_palette.data import beta_copula_rewards, gaussian_rewards, review_corpus, review_prompts
    from map_palette.decode import map_decode, map_select, selection_weights
    from map_palette.dual import (
        NORMALIZATIONS,
        dual_objective,
        effective_sample_size,
        empirical_kl,
        kl_ceiling,
        realized_levels,
        tilt_weights,
    )
    from map_palette.gaussian import gaussian_lambda_star, gaussian_solve, gaussian_tilted_mean
    from map_palette.methods import METHODS, run_method
    from map_palette.palette import pareto_search, quantile_palette
    from map_palette.solvers import (
        SOLVERS,
        Solution,
        feasibility_margin,
        is_feasible,
        sequential_lambda,
        solve_lambda,
    )
    from map_palette.training import LMConfig, train_review_lm
    from map_palette.values import (
        BagOfWordsCoherence,
        Conciseness,
        Diversity,
        EmbeddingCoherence,
        Lexicon,
        coherence_value,
        score_values,
    )

__getattr__, __dir__, __all__ = paperkit.public_api(__name__)

__version__ = paperkit.package_version("iclr25-map-palette")
