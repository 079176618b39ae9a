"""rslqr: episodic risk-sensitive LQR (LEQR) with unknown dynamics — regret of least-squares learners.

Reproduces "Regret Bounds for Episodic Risk-Sensitive Linear Quadratic Regulator" (ICLR 2025,
arXiv 2406.05366). The public names are listed once, as the ``if TYPE_CHECKING:`` imports, and imported on
first use; the experiment (``rslqr.reproduce``) is not part of the package's API.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import paperkit

from rslqr.env import ENV_ID as ENV_ID
from rslqr.env import register_envs

if TYPE_CHECKING:  # the public names, once: type checkers read them, paperkit.public_api parses them
    from rslqr.algorithms import (
        Learner as Learner,
    )
    from rslqr.algorithms import (
        RunLog as RunLog,
    )
    from rslqr.env import (
        EpisodicLEQREnv as EpisodicLEQREnv,
    )
    from rslqr.estimate import (
        LSFit as LSFit,
    )
    from rslqr.estimate import (
        LSStatistics as LSStatistics,
    )
    from rslqr.estimate import (
        least_squares as least_squares,
    )
    from rslqr.estimate import (
        solve_least_squares as solve_least_squares,
    )
    from rslqr.experiments import (
        GrowthSummary as GrowthSummary,
    )
    from rslqr.experiments import (
        doubling_grid as doubling_grid,
    )
    from rslqr.experiments import (
        doubling_increments as doubling_increments,
    )
    from rslqr.experiments import (
        fit_loglog_slope as fit_loglog_slope,
    )
    from rslqr.experiments import (
        identifiability_margin as identifiability_margin,
    )
    from rslqr.experiments import (
        identifiable as identifiable,
    )
    from rslqr.experiments import (
        initial_estimate as initial_estimate,
    )
    from rslqr.experiments import (
        loglog_slope as loglog_slope,
    )
    from rslqr.experiments import (
        median_inf as median_inf,
    )
    from rslqr.experiments import (
        regret_curve as regret_curve,
    )
    from rslqr.experiments import (
        run_seeds as run_seeds,
    )
    from rslqr.experiments import (
        summarise_growth as summarise_growth,
    )
    from rslqr.methods import (
        ALGORITHM_NAMES as ALGORITHM_NAMES,
    )
    from rslqr.methods import (
        METHODS as METHODS,
    )
    from rslqr.methods import (
        MethodInfo as MethodInfo,
    )
    from rslqr.methods import (
        algorithm1 as algorithm1,
    )
    from rslqr.methods import (
        algorithm2 as algorithm2,
    )
    from rslqr.methods import (
        ce_lqr as ce_lqr,
    )
    from rslqr.methods import (
        constant_noise as constant_noise,
    )
    from rslqr.methods import (
        fixed_initial as fixed_initial,
    )
    from rslqr.methods import (
        greedy_every_episode as greedy_every_episode,
    )
    from rslqr.methods import (
        make_learner as make_learner,
    )
    from rslqr.methods import (
        oracle as oracle,
    )
    from rslqr.riccati import (
        RiccatiBreakdown as RiccatiBreakdown,
    )
    from rslqr.riccati import (
        is_well_posed as is_well_posed,
    )
    from rslqr.riccati import (
        leqr_gains as leqr_gains,
    )
    from rslqr.riccati import (
        leqr_gains_kernel as leqr_gains_kernel,
    )
    from rslqr.riccati import (
        policy_cost as policy_cost,
    )
    from rslqr.riccati import (
        policy_value as policy_value,
    )
    from rslqr.riccati import (
        policy_value_kernel as policy_value_kernel,
    )
    from rslqr.riccati import (
        stationary_leqr as stationary_leqr,
    )
    from rslqr.systems import (
        LEQRSystem as LEQRSystem,
    )
    from rslqr.systems import (
        system_a as system_a,
    )
    from rslqr.systems import (
        system_b as system_b,
    )


__getattr__, __dir__, __all__ = paperkit.public_api(
    __name__, eager=("ENV_ID", "__version__", "register_envs")
)

register_envs()  # so that gymnasium.make(ENV_ID) works after `import rslqr`

__version__ = paperkit.package_version("iclr25-rslqr")
