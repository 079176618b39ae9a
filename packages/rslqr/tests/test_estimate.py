"""Least squares from sufficient statistics."""

from __future__ import annotations

import numpy as np
import pytest
from rslqr.estimate import LSStatistics, least_squares, solve_least_squares
from rslqr.systems import system_a


def rollout_data(
    rng: np.random.Generator, theta: np.ndarray, k: int, noise: float
) -> tuple[np.ndarray, np.ndarray]:
    n, d = theta.shape
    Z = rng.standard_normal((k, d))  # exciting (i.i.d.) states and inputs
    Y = Z @ theta.T + noise * rng.standard_normal((k, n))
    return Z, Y


def test_exact_recovery_without_noise() -> None:
    rng = np.random.default_rng(0)
    theta = system_a().theta
    # Closed-loop data with W = 0 and random exciting inputs.
    x = rng.standard_normal(2)
    Z, Y = [], []
    for _ in range(12):
        u = rng.standard_normal(1)
        z = np.concatenate([x, u])
        x = theta @ z
        Z.append(z)
        Y.append(x)
    fit = least_squares(np.array(Z), np.array(Y))
    assert not fit.rank_deficient and fit.rank == 3
    np.testing.assert_allclose(fit.theta, theta, atol=1e-10)


def test_matches_numpy_lstsq_and_incremental_equals_batch() -> None:
    rng = np.random.default_rng(1)
    theta = rng.standard_normal((3, 5))
    Z, Y = rollout_data(rng, theta, 200, 0.3)
    ref = np.linalg.lstsq(Z, Y, rcond=None)[0].T
    stats = LSStatistics.empty(3, 5)
    for chunk in np.array_split(np.arange(200), 7):
        stats = stats.add(Z[chunk], Y[chunk])
    assert stats.count == 200
    np.testing.assert_allclose(stats.gram, Z.T @ Z, rtol=1e-12)
    np.testing.assert_allclose(solve_least_squares(stats).theta, ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(least_squares(Z, Y).theta, ref, rtol=1e-10, atol=1e-12)


def test_ridge_formula_and_shrinkage() -> None:
    rng = np.random.default_rng(2)
    theta = rng.standard_normal((2, 3))
    Z, Y = rollout_data(rng, theta, 30, 0.1)
    lam = 2.5
    ref = Y.T @ Z @ np.linalg.inv(Z.T @ Z + lam * np.eye(3))
    np.testing.assert_allclose(least_squares(Z, Y, ridge=lam).theta, ref, rtol=1e-12)
    norms = [np.linalg.norm(least_squares(Z, Y, ridge=r).theta) for r in (0.0, 0.1, 1.0, 10.0, 1e3, 1e8)]
    assert np.all(np.diff(norms) < 0)
    assert norms[-1] < 1e-5 * norms[0]


def test_rank_deficient_data_gives_min_norm_solution() -> None:
    # Greedy play with a constant gain: u = k x makes the Gram matrix rank n < n + m.
    rng = np.random.default_rng(3)
    theta = system_a().theta
    k = np.array([[-0.5, -1.0]])
    X = rng.standard_normal((50, 2))
    Z = np.hstack([X, X @ k.T])
    Y = Z @ theta.T + 0.05 * rng.standard_normal((50, 2))
    fit = least_squares(Z, Y)
    assert fit.rank_deficient and fit.rank == 2
    ref = np.linalg.lstsq(Z, Y, rcond=None)[0].T
    np.testing.assert_allclose(fit.theta, ref, rtol=1e-8, atol=1e-10)
    assert np.all(np.isfinite(fit.theta))
    # A ridge makes the problem well posed again.
    assert not least_squares(Z, Y, ridge=1.0).rank_deficient
    empty = solve_least_squares(LSStatistics.empty(2, 3))
    assert empty.rank == 0 and empty.rank_deficient and np.all(empty.theta == 0)


def test_bad_inputs() -> None:
    stats = LSStatistics.empty(2, 3)
    with pytest.raises(ValueError, match="Z must have shape"):
        stats.add(np.zeros((4, 2)), np.zeros((4, 2)))
    with pytest.raises(ValueError, match="Y must have shape"):
        stats.add(np.zeros((4, 3)), np.zeros((5, 2)))
    with pytest.raises(ValueError, match="ridge must be finite and >= 0"):
        solve_least_squares(stats, ridge=-1.0)
    with pytest.raises(ValueError, match="finite entries"):
        least_squares([[np.nan, 1.0]], [[1.0]])
    with pytest.raises(ValueError, match="n and d must be >= 1"):
        LSStatistics.empty(0, 3)
