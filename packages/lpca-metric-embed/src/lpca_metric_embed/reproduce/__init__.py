"""``lpca-metric-embed reproduce``: exact embedding dimensions of L2 vs LPCA, planted graphs, KD-tree check.

``config`` (scales, the official recipe, margins), ``run`` (typed records and the report), ``claims``
(the paper's claims with sources), ``tables`` and ``plots`` (rendering from the records / report only).
"""

from lpca_metric_embed.reproduce.config import GRAPHS, OFFICIAL, PLANTED_D, Config, Margins, Recipe
from lpca_metric_embed.reproduce.plots import plots
from lpca_metric_embed.reproduce.run import (
    Case,
    KDCheck,
    Planted,
    Records,
    Search,
    kdtree_experiment,
    make_graph,
    mds_init,
    random_check_case,
    report,
    run,
    run_records,
)

__all__ = [
    "GRAPHS",
    "OFFICIAL",
    "PLANTED_D",
    "Case",
    "Config",
    "KDCheck",
    "Margins",
    "Planted",
    "Recipe",
    "Records",
    "Search",
    "kdtree_experiment",
    "make_graph",
    "mds_init",
    "plots",
    "random_check_case",
    "report",
    "run",
    "run_records",
]
