"""The headline experiment: DiSK against DP-SGD / DP-Adam at equal privacy, at small scale on 2 CPU cores.

Parts (each feeds one of the spec's claims):

1. **Classification** on sklearn's digits (MLP 64-64-10, tanh) and breast_cancer (logistic regression):
   Poisson rate q = 64/n, C = 1, delta = 1e-5, sigma from our RDP accountant for the target epsilon and
   T = epochs/q steps; methods DP-SGD, DP-SGD+EMA, DiSK-SGD, DP-Adam, DiSK-Adam and non-private SGD.
   In the full run each method's learning rate is chosen from a grid on a held-out 10 % of the training
   split (epsilon = 1, paired tune seeds), then every seed is trained at that rate and scored on the test
   split.
2. **Noisy quadratic** (least squares, condition number 100): time-averaged excess loss over the last 20 %
   of steps at equal lr and sigma for DP-SGD, the EMA ablation, DiSK (gamma = 0.5) and one-gradient DiSK.
3. **Privacy**: DiSK and DP-SGD runs report the same epsilon; our accountant vs Opacus' ``RDPAccountant``
   on a grid of (q, sigma, T) (vs numerical integration of the Rényi divergence when Opacus is absent).
4. **Cost**: median step time of one- and two-gradient DiSK relative to DP-SGD on the digits MLP, B = 64.

- ``config``: Config (quick/full/smoke), Case (one classification cell), Margins; the method names.
- ``run``: ``run(config, seed=..., device=...)`` -> paperkit Report; ``run_cases`` -> typed Records;
  ``quadratic_run`` one noisy-quadratic run.
- ``claims``: every claim's text, source and margin. ``tables``, ``plots``: rendering from records.
"""

from disk_dp.reproduce.config import HEAD, METHODS, PRED_METHODS, QUAD_METHODS, Case, Config, Margins
from disk_dp.reproduce.plots import plots
from disk_dp.reproduce.run import CaseRecord, QuadRecord, Records, quadratic_run, run, run_cases

__all__ = [
    "HEAD",
    "METHODS",
    "PRED_METHODS",
    "QUAD_METHODS",
    "Case",
    "CaseRecord",
    "Config",
    "Margins",
    "QuadRecord",
    "Records",
    "plots",
    "quadratic_run",
    "run",
    "run_cases",
]
