"""Pure statistics over traces: log-log slopes, slopes in log t, and the relative change over a window."""

from __future__ import annotations

import numpy as np
from paperkit import check_array

__all__ = ["loglog_slope", "semilog_slope", "value_at"]


def loglog_slope(x: np.ndarray, y: np.ndarray) -> float:
    """Least-squares slope of log y against log x (both positive, same length >= 2)."""
    x = np.asarray(check_array(x, "x", ndim=1), float)
    y = np.asarray(check_array(y, "y", shape=(len(x),)), float)
    if len(x) < 2 or np.any(x <= 0) or np.any(y <= 0):
        raise ValueError("x and y must hold at least two positive values")
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


def semilog_slope(t: np.ndarray, y: np.ndarray) -> float:
    """Least-squares slope of y against log t (t > 0): the growth per e-fold of time."""
    t = np.asarray(check_array(t, "t", ndim=1), float)
    y = np.asarray(check_array(y, "y", shape=(len(t),)), float)
    if len(t) < 2 or np.any(t <= 0):
        raise ValueError("t must hold at least two positive values")
    return float(np.polyfit(np.log(t), y, 1)[0])


def value_at(t: np.ndarray, y: np.ndarray, when: float) -> float:
    """y at the checkpoint nearest to ``when`` in log t."""
    t = np.asarray(t, float)
    i = int(np.argmin(np.abs(np.log(np.maximum(t, 0.5)) - np.log(max(when, 0.5)))))
    return float(y[i])
