"""Shared helpers of ols-certify's tests: small random regressions and an explicit-refit oracle."""

from __future__ import annotations

import numpy as np


def random_regression(
    rng: np.random.Generator, n: int, d: int, heavy: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    X = np.column_stack([np.ones(n), rng.normal(size=(n, d - 1))])
    noise = rng.standard_t(3, size=n) if heavy else rng.normal(size=n)
    return X, 0.5 * X[:, 1] + noise


def refit_coef(X: np.ndarray, y: np.ndarray, coef: int, T: list[int] | np.ndarray) -> float:
    """β_e after removing the rows T, by an explicit least-squares refit (np.linalg.lstsq)."""
    keep = np.setdiff1d(np.arange(X.shape[0]), np.asarray(T, dtype=int))
    return float(np.linalg.lstsq(X[keep], y[keep], rcond=None)[0][coef])
