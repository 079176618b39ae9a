"""Scaling-law fits: test error ~ C N^{-alpha}, alpha = -slope of log error vs log N (least squares)."""

from __future__ import annotations

import numpy as np
from paperkit import check_array

__all__ = ["decay_exponent", "exponents_over_seeds"]


def decay_exponent(Ns: np.ndarray, errors: np.ndarray) -> tuple[float, float]:
    """``(alpha, standard error of alpha)`` of the least-squares line through (log N, log error).

    The standard error is the ordinary-least-squares one (``nan`` with only two points).
    """
    N = np.asarray(check_array(Ns, "Ns", ndim=1), float)
    e = np.asarray(check_array(errors, "errors", shape=(len(N),)), float)
    if len(N) < 2 or np.any(N <= 0) or np.any(e <= 0):
        raise ValueError("Ns and errors need at least two points, all > 0")
    x, y = np.log(N), np.log(e)
    xc = x - x.mean()
    slope = float((xc * (y - y.mean())).sum() / (xc**2).sum())
    resid = y - y.mean() - slope * xc
    dof = len(N) - 2
    se = float(np.sqrt((resid**2).sum() / dof / (xc**2).sum())) if dof > 0 else float("nan")
    return -slope, se


def exponents_over_seeds(Ns: np.ndarray, errors: np.ndarray) -> np.ndarray:
    """``(n_seeds,)`` alpha for each row of ``errors (n_seeds, len(Ns))``."""
    errors = np.asarray(check_array(errors, "errors", shape=(None, len(Ns))), float)
    return np.array([decay_exponent(Ns, row)[0] for row in errors])
