"""Pure statistics over sweep tables: rank correlation of the sweep means and its bootstrap interval."""

from __future__ import annotations

import numpy as np
from paperkit import Interval, check_array, check_int, check_probability, spearman

from synthdata_ggmi.checks import check_rng

__all__ = ["spearman_ci"]


def _spearman_columns(x: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """Spearman's rho of ``x (V,)`` with every column of ``Y (V, B)`` (average ranks; NaN if constant)."""
    from scipy.stats import rankdata

    rx = rankdata(x) - (len(x) + 1) / 2
    rY = rankdata(Y, axis=0) - (len(x) + 1) / 2
    den = np.sqrt((rx @ rx) * (rY * rY).sum(axis=0))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, (rx @ rY) / np.where(den > 0, den, 1.0), np.nan)


def spearman_ci(
    values: np.ndarray,
    table: np.ndarray,
    *,
    rng: np.random.Generator,
    n_boot: int = 2000,
    level: float = 0.95,
) -> Interval:
    """Spearman's rho between ``values (V,)`` and the per-value means of ``table (V, R)``, with a percentile
    bootstrap CI that resamples the R repeats jointly across values (repeat r is paired across values)."""
    table = np.asarray(check_array(table, "table", ndim=2), dtype=float)
    values = np.asarray(check_array(values, "values", shape=(table.shape[0],)), dtype=float)
    if table.shape[0] < 2 or table.shape[1] < 1:
        raise ValueError(f"table must have at least 2 values and 1 repeat, got shape {table.shape}")
    check_rng(rng)
    n_boot = check_int(n_boot, "n_boot", low=1)
    level = check_probability(level, "level", allow_zero=False, allow_one=False)
    rho = spearman(values, table.mean(axis=1))
    R = table.shape[1]
    idx = rng.integers(0, R, size=(n_boot, R))
    means = table[:, idx].mean(axis=2)  # (V, n_boot)
    boot = _spearman_columns(values, means)
    boot = boot[np.isfinite(boot)]
    lo, hi = np.quantile(boot, [(1 - level) / 2, (1 + level) / 2]) if boot.size else (np.nan, np.nan)
    return Interval(float(rho), float(lo), float(hi), level, "percentile", int(R))
