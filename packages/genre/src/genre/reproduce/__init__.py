"""``genre reproduce``: GenRe against NNR (three variants), Wachter, Growing Spheres and ROAR.

``config`` (scales and margins), ``run`` (typed records and the report), ``claims`` (the paper's claims
with their sources and CIs), ``tables`` and ``plots`` (rendering from the records / report only).
"""

from genre.reproduce.config import BASELINES, DATASETS, Config, Margins
from genre.reproduce.plots import plots
from genre.reproduce.run import (
    Cell,
    Records,
    Toy,
    consistency,
    load,
    report,
    run,
    run_cell,
    run_records,
    toy_problem,
)

__all__ = [
    "BASELINES",
    "DATASETS",
    "Cell",
    "Config",
    "Margins",
    "Records",
    "Toy",
    "consistency",
    "load",
    "plots",
    "report",
    "run",
    "run_cell",
    "run_records",
    "toy_problem",
]
