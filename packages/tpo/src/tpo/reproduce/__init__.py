"""``tpo reproduce``: TPO vs DPO (both pairings), each tuned on dev with one grid, on arithmetic trees.

``config`` (scales, methods, grid, margins), ``run`` (typed records and the report), ``claims`` (accuracy
first, with sources and paired CIs; τ as a labelled proxy), ``tables`` and ``plots``.
"""

from tpo.reproduce.config import METHODS, TUNED, Config, Margins
from tpo.reproduce.plots import plots
from tpo.reproduce.run import MethodRun, Records, Reference, answers, list_taus, report, run, run_records

__all__ = [
    "METHODS",
    "TUNED",
    "Config",
    "Margins",
    "MethodRun",
    "Records",
    "Reference",
    "answers",
    "list_taus",
    "plots",
    "report",
    "run",
    "run_records",
]
