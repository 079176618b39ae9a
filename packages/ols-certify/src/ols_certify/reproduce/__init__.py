"""The reproduction: soundness against brute force, non-triviality, tightness and dominance over FH23.

Spec §"Small-scale reproduction": (a) tiny planted regressions checked against brute force for k ≤ 4,
(b) the official Gaussian synthetic data (n = 4000) with independent and planted labels, (c) scikit-learn's
diabetes data, (d) a fixed-effects design (full run).

- ``config``: Config (quick/full/smoke), Case (one audited regression), Margins.
- ``run``: ``run(config, seed=..., device=...)`` -> paperkit Report; ``run_cases`` -> typed Records.
- ``claims``: every claim's text, source and margin. ``tables``, ``plots``: rendering from records.
"""

from ols_certify.reproduce.config import Case, Config, Margins
from ols_certify.reproduce.plots import plots
from ols_certify.reproduce.run import CaseRecord, InstanceRecord, Records, TinyRecord, run, run_cases

__all__ = [
    "Case",
    "CaseRecord",
    "Config",
    "InstanceRecord",
    "Margins",
    "Records",
    "TinyRecord",
    "plots",
    "run",
    "run_cases",
]
