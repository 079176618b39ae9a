"""The headline experiment: regret of the neural dueling bandits against their linear versions.

The paper's synthetic experiments (Square and Cosine utilities, BTL preferences) show NDB-UCB and NDB-TS
with much lower cumulative regret than LinDB-UCB / LinDB-TS, flattening over time; the binary-feedback
extension is compared with a linear GLM bandit. We run every (utility, algorithm) case on the same seeds
— environment seed s gives every algorithm the same θ*, contexts and label draws — and check the spec's
claims on the seed-mean final regret R_T (average regret) and on the ratio of regret accrued in the
second half of the horizon to the first.

- ``config``: Case, the case sets, Config (quick/full/smoke), Margins.
- ``run``: ``run(config, seed=..., device=...)`` -> paperkit Report; ``run_cases`` -> typed Records;
  ``play`` one (case, seed) run.
- ``claims``: every claim's text, source and margin. ``tables``, ``plots``: rendering from records.
"""

from bandit_neural.reproduce.config import (
    BINARY_CASES,
    CLAIM_CASES,
    COSINE_CASES,
    FULL_CASES,
    LINEAR_CASES,
    NEURAL,
    SQUARE_CASES,
    Case,
    Config,
    Margins,
)
from bandit_neural.reproduce.plots import plots
from bandit_neural.reproduce.run import CaseRecord, Curve, Records, make_algorithm, play, run, run_cases

__all__ = [
    "BINARY_CASES",
    "CLAIM_CASES",
    "COSINE_CASES",
    "FULL_CASES",
    "LINEAR_CASES",
    "NEURAL",
    "SQUARE_CASES",
    "Case",
    "CaseRecord",
    "Config",
    "Curve",
    "Margins",
    "Records",
    "make_algorithm",
    "play",
    "plots",
    "run",
    "run_cases",
]
