"""The headline experiment: regret growth of the greedy and the exploration-noise learners.

Theorem 1 of the paper: least-squares greedy play on doubling epochs (Algorithm 1) has Õ(log N) regret
when the optimal gains are identifying (Assumption 1). Theorem 2: with decaying exploration noise and
regularised least squares (Algorithm 2) the regret is Õ(√N) without that assumption. We measure the exact
regret Σ_k J^{π_k}(x_0^k) − J*(x_0^k) of each learner on the spec's System A (identifiable) and, in the
full run, System B (not identifiable by greedy data), and fit its growth rate on log-log and semi-log axes.

- ``config``: Config (quick/full/smoke), Case, Margins.
- ``run``: ``run(config, seed=..., device=...)`` -> paperkit Report; ``run_cases`` -> typed Records.
- ``claims``: every claim's text, source and margin. ``tables``, ``plots``: rendering from records.
"""

from rslqr.reproduce.config import Case, Config, Margins
from rslqr.reproduce.plots import plots
from rslqr.reproduce.run import CaseRecord, Records, run, run_cases

__all__ = ["Case", "CaseRecord", "Config", "Margins", "Records", "plots", "run", "run_cases"]
