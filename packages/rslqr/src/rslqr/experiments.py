"""Regret curves over seeds, log-log slopes, growth summaries and the identifiability (Assumption 1) check."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from paperkit.validation import check_positive, check_seed

from rslqr._linalg import FloatArray, as_float_array
from rslqr.algorithms import Learner, RunLog
from rslqr.env import EpisodicLEQREnv
from rslqr.methods import make_learner
from rslqr.riccati import leqr_gains_kernel, policy_value_kernel
from rslqr.systems import LEQRSystem

__all__ = [
    "GrowthSummary",
    "doubling_grid",
    "doubling_increments",
    "fit_loglog_slope",
    "identifiability_margin",
    "identifiable",
    "initial_estimate",
    "late_regret_per_episode",
    "loglog_slope",
    "median_inf",
    "regret_curve",
    "risk_neutral_gap",
    "run_seeds",
    "summarise_growth",
]


def initial_estimate(system: LEQRSystem, scale: float, rng: np.random.Generator) -> FloatArray:
    """θ̂^(1) = θ* + scale · E with E (n, n + m) i.i.d. N(0, 1) entries drawn from ``rng``."""
    check_positive(scale, "theta_init_scale", strict=False)
    return system.theta + scale * rng.standard_normal(system.theta.shape)


def _as_learner(algorithm: str | Learner, overrides: dict[str, Any]) -> Learner:
    if isinstance(algorithm, Learner):
        return dataclasses.replace(algorithm, **overrides) if overrides else algorithm
    return make_learner(algorithm, **overrides)


def _check_seeds(seeds: ArrayLike | int) -> list[int]:
    # Python ints are checked one by one, not through np.asarray: seeds past int64 would become an
    # object array (issue 23: --seed 2**70 overflowed on this path).
    if isinstance(seeds, np.ndarray):
        seeds = seeds.tolist()
    items = [seeds] if not isinstance(seeds, (list, tuple, range)) else list(seeds)
    if not items:
        raise ValueError(f"seeds must be a non-empty sequence of integers, got {seeds!r}")
    return [check_seed(s, f"seeds[{i}]") for i, s in enumerate(items)]


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


def median_inf(x: ArrayLike, axis: int | None = None) -> FloatArray:
    """Median that treats +inf as the largest value (numpy's interpolation warns on inf - inf; the
    result is still right: the median is +inf exactly when the middle values are)."""
    with np.errstate(invalid="ignore"):
        return np.asarray(np.median(np.asarray(x), axis=axis))


@dataclass(frozen=True, eq=False)
class GrowthSummary:
    """Growth statistics of S cumulative-regret curves on a doubling grid (see :func:`summarise_growth`).

    Attributes:
        seeds_with_infinite_regret: seeds whose regret reached +inf (a divergent controller was played).
        slope_per_seed: (S,) log-log slopes, +inf for a divergent seed.
        slope_median: median of ``slope_per_seed`` (inf-robust while fewer than half diverge).
        slope_of_mean_curve: slope of the seed-mean curve (NaN when a seed diverges).
        regret_at_N_median, regret_at_N_per_seed: final cumulative regret, median and (S,).
        doubling_increments_median_curve: (k - 1,) regret added per doubling of the seed-median curve.
        doubling_ratio_last3: mean ratio of successive increments over the last three doublings
            (√N: √2, log N: 1, linear: 2).
        semilog_slope_median_curve: slope of the median curve against log N (log N growth: a constant).
    """

    seeds_with_infinite_regret: int
    slope_per_seed: FloatArray
    slope_median: float
    slope_of_mean_curve: float
    regret_at_N_median: float
    regret_at_N_per_seed: FloatArray
    doubling_increments_median_curve: FloatArray
    doubling_ratio_last3: float
    semilog_slope_median_curve: float


def summarise_growth(curves: ArrayLike, grid: ArrayLike) -> GrowthSummary:
    """Growth statistics of cumulative-regret curves (S, N) on a doubling grid (k,) of episode counts."""
    curves = as_float_array(curves, "curves")
    grid = np.asarray(grid, dtype=np.int64)
    finite = np.isfinite(curves[:, -1])
    slopes = np.array(
        [fit_loglog_slope(grid, c[grid - 1]) if f else math.inf for c, f in zip(curves, finite, strict=True)]
    )
    median = median_inf(curves, axis=0)  # inf-robust while fewer than half the seeds diverge
    with np.errstate(invalid="ignore"):  # inf - inf on a divergent curve: NaN increments, reported as inf
        increments = np.diff(median[grid - 1])
    ratios = increments[1:] / increments[:-1] if np.all(np.isfinite(increments)) else np.array([math.inf])
    semilog = np.polyfit(np.log(grid), median[grid - 1], 1)[0] if np.all(np.isfinite(median)) else math.inf
    return GrowthSummary(
        seeds_with_infinite_regret=int((~finite).sum()),
        slope_per_seed=slopes,
        slope_median=float(median_inf(slopes)),
        slope_of_mean_curve=fit_loglog_slope(grid, curves.mean(axis=0)[grid - 1]),
        regret_at_N_median=float(median[-1]),
        regret_at_N_per_seed=curves[:, -1],
        doubling_increments_median_curve=increments,
        doubling_ratio_last3=float(np.mean(ratios[-3:])) if ratios.size else math.nan,
        semilog_slope_median_curve=float(semilog),
    )


def risk_neutral_gap(system: LEQRSystem) -> float:
    """Per-episode regret, averaged over x_0, of the risk-neutral (γ = 0) optimal gains of the true θ.

    E[J^{K_LQR}(x_0)] − E[J*(x_0)] = tr((P_LQR − P*) x0_cov) + (c_LQR − c*) under the system's γ: the
    regret per episode a certainty-equivalent LQR learner keeps paying once its estimate is exact, so its
    cumulative regret grows linearly with this slope (+inf if those gains break down at γ).
    """
    s = system
    K_rn = leqr_gains_kernel(s.A, s.B, s.Q, s.R, s.QT, s.W_sqrt, s.T, 0.0)[0]
    K_rs = leqr_gains_kernel(s.A, s.B, s.Q, s.R, s.QT, s.W_sqrt, s.T, s.gamma)[0]
    P_rn, c_rn = policy_value_kernel(s.A, s.B, s.Q, s.R, s.QT, s.W_sqrt, K_rn, s.gamma, 0.0)
    P_rs, c_rs = policy_value_kernel(s.A, s.B, s.Q, s.R, s.QT, s.W_sqrt, K_rs, s.gamma, 0.0)
    if not np.isfinite(c_rn):
        return math.inf
    return float(np.sum((P_rn - P_rs) * s.x0_cov) + (c_rn - c_rs))


def late_regret_per_episode(curves: ArrayLike) -> FloatArray:
    """(S,) mean per-episode regret over the last doubling (N/2, N] of cumulative curves (S, N).

    A learner with vanishing per-episode regret (Algorithm 1, log N) drives this to 0; a linear-regret
    learner keeps it at its per-episode gap. +inf for a seed whose regret is infinite by episode N.
    """
    c = as_float_array(curves, "curves")
    if c.ndim != 2 or c.shape[1] < 2:
        raise ValueError(f"curves must have shape (S, N) with N >= 2, got {c.shape}")
    half = c.shape[1] // 2
    with np.errstate(invalid="ignore"):  # inf - inf for a seed that diverged before N/2
        late = (c[:, -1] - c[:, half - 1]) / (c.shape[1] - half)
    late[~np.isfinite(c[:, -1])] = math.inf
    return late
