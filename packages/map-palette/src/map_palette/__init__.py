"""map_palette: MAP (Multi-Human-Value Alignment Palette) as a constrained problem solved by its dual.

Reproduces "MAP: Multi-Human-Value Alignment Palette" (Wang et al., ICLR 2025; arXiv 2410.19198):
the dual and its solvers, the LP feasibility oracle, sequential alignment, palettes, value rewards,
MAP decoding of a tiny LM's samples, and the baselines.
"""

from typing import TYPE_CHECKING

import paperkit

PUBLIC = {
    "NORMALIZATIONS": "dual",
    "dual_objective": "dual",
    "realized_levels": "dual",
    "tilt_weights": "dual",
    "empirical_kl": "dual",
    "effective_sample_size": "dual",
    "kl_ceiling": "dual",
    "SOLVERS": "solvers",
    "Solution": "solvers",
    "solve_lambda": "solvers",
    "sequential_lambda": "solvers",
    "feasibility_margin": "solvers",
    "is_feasible": "solvers",
    "gaussian_lambda_star": "gaussian",
    "gaussian_solve": "gaussian",
    "gaussian_tilted_mean": "gaussian",
    "quantile_palette": "palette",
    "pareto_search": "palette",
    "Diversity": "values",
    "Conciseness": "values",
    "Lexicon": "values",
    "EmbeddingCoherence": "values",
    "BagOfWordsCoherence": "values",
    "coherence_value": "values",
    "score_values": "values",
    "map_decode": "decode",
    "map_select": "decode",
    "selection_weights": "decode",
    "METHODS": "methods",
    "run_method": "methods",
    "gaussian_rewards": "data",
    "beta_copula_rewards": "data",
    "review_corpus": "data",
    "review_prompts": "data",
    "LMConfig": "training",
    "train_review_lm": "training",
}
__getattr__, __dir__, __all__ = paperkit.public_api(__name__, PUBLIC)

if TYPE_CHECKING:
    from map_palette.data import beta_copula_rewards, gaussian_rewards, review_corpus, review_prompts  # noqa: F401
    from map_palette.decode import map_decode, map_select, selection_weights  # noqa: F401
    from map_palette.dual import (  # noqa: F401
        NORMALIZATIONS,
        dual_objective,
        effective_sample_size,
        empirical_kl,
        kl_ceiling,
        realized_levels,
        tilt_weights,
    )
    from map_palette.gaussian import gaussian_lambda_star, gaussian_solve, gaussian_tilted_mean  # noqa: F401
    from map_palette.methods import METHODS, run_method  # noqa: F401
    from map_palette.palette import pareto_search, quantile_palette  # noqa: F401
    from map_palette.solvers import (  # noqa: F401
        SOLVERS,
        Solution,
        feasibility_margin,
        is_feasible,
        sequential_lambda,
        solve_lambda,
    )
    from map_palette.training import LMConfig, train_review_lm  # noqa: F401
    from map_palette.values import (  # noqa: F401
        BagOfWordsCoherence,
        Conciseness,
        Diversity,
        EmbeddingCoherence,
        Lexicon,
        coherence_value,
        score_values,
    )

__version__ = paperkit.package_version("iclr25-map-palette")
