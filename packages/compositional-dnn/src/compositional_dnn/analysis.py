"""Scaling-law fits: test error ~ C N^{-alpha}, alpha = -slope of log error vs log N (least squares)."""

from __future__ import annotations

import numpy as np
from paperkit import check_array

__all__ = ["decay_exponent", "exponents_over_seeds"]


def _check_ns(Ns: np.ndarray) -> np.ndarray:
    """``Ns``: a 1-D array of >= 2 positive, not all equal sample sizes (float64)."""
    N = np.asarray(check_array(Ns, "Ns", ndim=1, kind="fiu"), float)
    if len(N) < 2 or np.any(N <= 0) or np.ptp(N) == 0:
        raise ValueError(f"Ns must hold at least two distinct values, all > 0, got {N.tolist()}")
    return N


def _fit(N: np.ndarray, errors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(alpha, se)`` for every row of ``errors (n_rows, len(N))`` at once (one least-squares line each)."""
    if np.any(errors <= 0):
        raise ValueError("errors must be > 0 (their logarithm is fitted)")
    x, y = np.log(N), np.log(errors)
    xc, yc = x - x.mean(), y - y.mean(axis=1, keepdims=True)
    sxx = (xc**2).sum()
    slope = (yc * xc).sum(axis=1) / sxx
    resid = yc - slope[:, None] * xc
    dof = len(N) - 2
    se = np.sqrt((resid**2).sum(axis=1) / dof / sxx) if dof > 0 else np.full(len(slope), np.nan)
    return -slope, se


def decay_exponent(Ns: np.ndarray, errors: np.ndarray) -> tuple[float, float]:
    """``(alpha, standard error of alpha)`` of the least-squares line through (log N, log error).

    The standard error is the ordinary-least-squares one (``nan`` with only two points).
    """
    N = _check_ns(Ns)
    e = np.asarray(check_array(errors, "errors", shape=(len(N),), kind="fiu"), float)
    alpha, se = _fit(N, e[None, :])
    return float(alpha[0]), float(se[0])


def exponents_over_seeds(Ns: np.ndarray, errors: np.ndarray) -> np.ndarray:
    """``(n_seeds,)`` alpha for each row of ``errors (n_seeds, len(Ns))``."""
    N = _check_ns(Ns)
    errors = np.asarray(check_array(errors, "errors", shape=(None, len(N)), kind="fiu"), float)
    if len(errors) == 0:
        raise ValueError("errors must have at least one row, got 0")
    return _fit(N, errors)[0]
