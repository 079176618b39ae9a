"""rslqr: episodic risk-sensitive LQR (LEQR) with unknown dynamics — regret of least-squares learners.

Reproduces "Regret Bounds for Episodic Risk-Sensitive Linear Quadratic Regulator" (ICLR 2025,
arXiv 2406.05366).
"""

from importlib.metadata import PackageNotFoundError, version

from rslqr.algorithms import (
    ALGORITHM_NAMES,
    Learner,
    RunLog,
    algorithm1,
    algorithm2,
    ce_lqr,
    constant_noise,
    fixed_initial,
    greedy_every_episode,
    make_learner,
    oracle,
)
from rslqr.env import ENV_ID, EpisodicLEQREnv, register_envs
from rslqr.estimate import LSFit, LSStatistics, least_squares, solve_least_squares
from rslqr.experiments import (
    doubling_grid,
    doubling_increments,
    fit_loglog_slope,
    identifiability_margin,
    identifiable,
    initial_estimate,
    loglog_slope,
    regret_curve,
    run_seeds,
)
from rslqr.reproduce import Config
from rslqr.riccati import (
    RiccatiBreakdown,
    is_well_posed,
    leqr_gains,
    policy_cost,
    policy_value,
    stationary_leqr,
)
from rslqr.systems import LEQRSystem, system_a, system_b

register_envs()  # so that gymnasium.make(ENV_ID) works after `import rslqr`

try:
    __version__ = version("iclr25-rslqr")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0"

__all__ = [
    "ALGORITHM_NAMES",
    "ENV_ID",
    "Config",
    "EpisodicLEQREnv",
    "LEQRSystem",
    "LSFit",
    "LSStatistics",
    "Learner",
    "RiccatiBreakdown",
    "RunLog",
    "__version__",
    "algorithm1",
    "algorithm2",
    "ce_lqr",
    "constant_noise",
    "doubling_grid",
    "doubling_increments",
    "fit_loglog_slope",
    "fixed_initial",
    "greedy_every_episode",
    "identifiability_margin",
    "identifiable",
    "initial_estimate",
    "is_well_posed",
    "least_squares",
    "leqr_gains",
    "loglog_slope",
    "make_learner",
    "oracle",
    "policy_cost",
    "policy_value",
    "register_envs",
    "regret_curve",
    "run_seeds",
    "solve_least_squares",
    "stationary_leqr",
    "system_a",
    "system_b",
]
