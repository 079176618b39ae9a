"""Regret curves over seeds, log-log slopes and the identifiability (Assumption 1) check."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rslqr._linalg import FloatArray, as_float_array
from rslqr.algorithms import Learner, RunLog, make_learner
from rslqr.env import EpisodicLEQREnv
from rslqr.systems import LEQRSystem

__all__ = [
    "doubling_grid",
    "doubling_increments",
    "fit_loglog_slope",
    "identifiability_margin",
    "identifiable",
    "initial_estimate",
    "loglog_slope",
    "regret_curve",
    "run_seeds",
]


def initial_estimate(system: LEQRSystem, scale: float, rng: np.random.Generator) -> FloatArray:
    """θ̂^(1) = θ* + scale · E with E (n, n + m) i.i.d. N(0, 1) entries drawn from ``rng``."""
    if not (np.isfinite(scale) and scale >= 0.0):
        raise ValueError(f"theta_init_scale must be finite and >= 0, got {scale}")
    return system.theta + scale * rng.standard_normal(system.theta.shape)


def _as_learner(algorithm: str | Learner, overrides: dict[str, Any]) -> Learner:
    if isinstance(algorithm, Learner):
        return dataclasses.replace(algorithm, **overrides) if overrides else algorithm
    return make_learner(algorithm, **overrides)


def _check_seeds(seeds: ArrayLike | int) -> list[int]:
    arr = np.atleast_1d(np.asarray(seeds))
    if arr.ndim != 1 or arr.size == 0 or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"seeds must be a non-empty sequence of integers, got {seeds!r}")
    return [int(s) for s in arr]


def run_seeds(
    algorithm: str | Learner,
    system: LEQRSystem,
    n_episodes: int,
    seeds: ArrayLike | int,
    theta_init_scale: float = 0.1,
    **overrides: Any,
) -> list[RunLog]:
    """One run per seed. Seed s: rng = default_rng(s); θ̂^(1) = θ* + scale·N(0,1) from rng, then the
    learner runs on a fresh :class:`EpisodicLEQREnv` with the same rng (so, per seed, every learner
    sees the same θ̂^(1), initial states and process noise)."""
    learner = _as_learner(algorithm, overrides)
    logs = []
    for s in _check_seeds(seeds):
        rng = np.random.default_rng(s)
        theta_init = initial_estimate(system, theta_init_scale, rng)
        logs.append(learner.run(EpisodicLEQREnv(system), n_episodes, theta_init=theta_init, seed=rng))
    return logs


def regret_curve(
    algorithm: str | Learner,
    system: LEQRSystem,
    n_episodes: int,
    seeds: ArrayLike | int,
    theta_init_scale: float = 0.1,
    *,
    expected: bool = False,
    **overrides: Any,
) -> FloatArray:
    """Cumulative exact regret, shape (S, N): row s is Σ_{j<=k} regret_j for seed s.

    Args:
        algorithm: a name from ``rslqr.algorithms.ALGORITHM_NAMES`` or a Learner.
        system: the true system. n_episodes: N. seeds: S integer seeds.
        theta_init_scale: std of the entrywise perturbation of θ̂^(1) around θ*.
        expected: use the x_0-averaged regret instead of the realised-x_0 one.
        overrides: Learner field overrides (e.g. ``ridge=0.1``).
    """
    logs = run_seeds(algorithm, system, n_episodes, seeds, theta_init_scale, **overrides)
    return np.stack([np.cumsum(log.expected_regret if expected else log.regret) for log in logs])


def doubling_grid(n_max: int, n_min: int = 64) -> NDArray[np.int64]:
    """Episode counts n_min, 2 n_min, 4 n_min, … <= n_max (n_max appended if not on the grid)."""
    if n_min < 1 or n_max < n_min:
        raise ValueError(f"need 1 <= n_min <= n_max, got n_min={n_min}, n_max={n_max}")
    grid = [n_min]
    while grid[-1] * 2 <= n_max:
        grid.append(grid[-1] * 2)
    if grid[-1] != n_max:
        grid.append(n_max)
    return np.asarray(grid, dtype=np.int64)


def fit_loglog_slope(n_grid: ArrayLike, regret: ArrayLike) -> float:
    """Least-squares slope b of log R = a + b log N.

    Args:
        n_grid: (k,) episode counts N (k >= 2, positive). regret: (k,) cumulative regret at those N
            (positive, e.g. the seed-averaged curve evaluated on ``doubling_grid``).

    Returns:
        the slope, or NaN when some regret is +inf (a controller with a divergent criterion was
        played, so the curve has no finite growth rate).
    """
    N = as_float_array(n_grid, "n_grid").ravel()
    Rg = as_float_array(regret, "regret").ravel()
    if N.shape != Rg.shape or N.size < 2:
        raise ValueError(f"n_grid and regret need the same length >= 2, got {N.size} and {Rg.size}")
    if not (np.all(N > 0) and np.all(np.isfinite(N))) or np.unique(N).size < 2:
        raise ValueError("n_grid must be positive, finite and not all equal")
    if np.any(np.isnan(Rg)) or not np.all(Rg > 0):
        raise ValueError("regret must be positive (and not NaN) for a log-log fit")
    if np.any(np.isinf(Rg)):
        return float("nan")
    x, y = np.log(N), np.log(Rg)
    xc = x - x.mean()
    return float(np.dot(xc, y - y.mean()) / np.dot(xc, xc))


def _mean_curve(curve: ArrayLike) -> FloatArray:
    c = as_float_array(curve, "curve")
    if c.ndim == 2:
        c = c.mean(axis=0)
    if c.ndim != 1 or c.size == 0:
        raise ValueError(f"curve must be (N,) or (S, N), got shape {np.shape(curve)}")
    return c


def loglog_slope(curve: ArrayLike, n_min: int = 64) -> float:
    """Slope of the (seed-averaged) cumulative-regret curve (N,) or (S, N) on ``doubling_grid``.

    NaN if the curve is +inf (see ``fit_loglog_slope``).
    """
    c = _mean_curve(curve)
    grid = doubling_grid(c.size, n_min)
    return fit_loglog_slope(grid, c[grid - 1])


def doubling_increments(curve: ArrayLike, n_min: int = 64) -> tuple[NDArray[np.int64], FloatArray]:
    """Regret added per doubling of N on the (seed-averaged) cumulative curve.

    Returns:
        grid: (k,) the doubling grid minus its first point, N_1 = 2 n_min, …; increments: (k,)
        R(N_i) - R(N_{i-1}). For √N growth successive increments grow by √2 ≈ 1.41, for log N they
        stay constant and for linear growth they double. NaN where the curve is already +inf.
    """
    c = _mean_curve(curve)
    grid = doubling_grid(c.size, n_min)
    with np.errstate(invalid="ignore"):  # inf - inf on a divergent curve is NaN, as documented
        increments = np.diff(c[grid - 1])
    return grid[1:], increments


def identifiability_margin(system: LEQRSystem) -> float:
    """σ_min / σ_max of the stacked matrix [[I, K_0ᵀ], …, [I, K_{T-1}ᵀ]] (Tn, n + m) of optimal gains.

    Assumption 1 (self-exploration): the only (a, b) with a + K_tᵀ b = 0 for all t is a = b = 0, i.e.
    this matrix has full column rank n + m; then greedy data z_t = (x_t; K_t x_t) excite every
    direction of θ. The margin is 0 (up to rounding) exactly when the assumption fails.
    """
    K = system.optimal_gains()[0]
    n = system.n
    rows = np.concatenate([np.hstack([np.eye(n), K[t].T]) for t in range(system.T)], axis=0)
    sv = np.linalg.svd(rows, compute_uv=False)
    return float(sv[-1] / sv[0]) if rows.shape[0] >= rows.shape[1] else 0.0


def identifiable(system: LEQRSystem, tol: float = 1e-6) -> bool:
    """Assumption 1 helper: True iff ``identifiability_margin(system) > tol``.

    The tolerance absorbs rounding: on System B the gains are constant only up to the fixed-point
    tolerance of ``stationary_leqr`` (margin ~1e-13), while System A has a margin of order 0.1.
    """
    return identifiability_margin(system) > tol
