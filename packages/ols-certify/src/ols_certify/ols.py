"""Ordinary least squares and the exact effect of removing samples.

Notation (spec §"The method"): X (n, d) with intercept/dummies as columns, Σ = XᵀX, β = Σ⁻¹Xᵀy,
r = y − Xβ, the coefficient of interest e (a column index). For a set T of removed rows,
β(T) − β = −(Σ − Σ_T)⁻¹ Σ_{i∈T} x_i r_i while Σ − Σ_T is invertible.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ols_certify._validate import as_design, check_rank, coef_index, column_names

# Σ − Σ_T counts as singular when its smallest eigenvalue is below this fraction of Σ's largest: the
# refit then does not identify β, and we count the conclusion as lost (the certificate's U(k) = +inf).
SINGULAR_TOL = 1e-10


@dataclass(frozen=True)
class OLSFit:
    """An OLS fit.

    Attributes:
        beta: (d,) coefficients.
        resid: (n,) residuals y − Xβ.
        Sigma: (d, d) XᵀX.
        se: (d,) classical standard errors sqrt(σ̂² (Σ⁻¹)_jj), σ̂² = ‖r‖²/(n − d).
        n, d: sample size and number of columns.
        names: column names (``x0``, ``x1``, ... unless given).
    """

    beta: np.ndarray
    resid: np.ndarray
    Sigma: np.ndarray
    se: np.ndarray
    n: int
    d: int
    names: tuple[str, ...]


def fit_kernel(X: np.ndarray, y: np.ndarray, names: Sequence[str]) -> OLSFit:
    """The OLS fit of already validated float64 ``X: (n, d)`` (full column rank, n > d) and ``y: (n,)``,
    through a QR factorisation; :func:`fit_ols` is the validated entry point."""
    n, d = X.shape
    Q, R = np.linalg.qr(X)
    beta = np.linalg.solve(R, Q.T @ y)
    resid = y - X @ beta
    Rinv = np.linalg.solve(R, np.eye(d))
    sigma2 = float(resid @ resid) / (n - d)
    se = np.sqrt(sigma2 * np.sum(Rinv**2, axis=1))  # diag of Σ⁻¹ = R⁻¹R⁻ᵀ
    return OLSFit(beta, resid, X.T @ X, se, n, d, tuple(names))


def fit_ols(X: Any, y: Any, *, add_intercept: bool = False, names: Sequence[str] | None = None) -> OLSFit:
    """Fit y ≈ Xβ by least squares, refusing designs that do not identify β.

    Args:
        X: (n, d) design; y: (n,) response; both finite.
        add_intercept: prepend a column of ones (named ``"const"``).
        names: optional column names (of X before the intercept is added).

    Raises:
        ValueError: n ≤ d, NaN/inf, mismatched shapes, or rank-deficient X (the message names the collinear
            columns).
    """
    Xa, ya = as_design(X, y)
    nm = column_names(Xa.shape[1], names)
    if add_intercept:
        Xa = np.column_stack([np.ones(Xa.shape[0]), Xa])
        nm = ["const", *nm]
        Xa, ya = as_design(Xa, ya)
    check_rank(Xa, nm)
    return fit_kernel(Xa, ya, nm)


def removal_effect(X: Any, y: Any, coef: int, T: Any) -> float:
    """Exact change β_e(T) − β_e of coefficient ``coef`` when the rows in ``T`` are removed and OLS refit.

    Uses β(T) − β = −(Σ − Σ_T)⁻¹ Σ_{i∈T} x_i r_i. Returns ``nan`` when Σ − Σ_T is singular (β_e(T) is
    then not identified).
    """
    Xa, ya = as_design(X, y)
    nm = column_names(Xa.shape[1], None)
    check_rank(Xa, nm)
    e = coef_index(coef, Xa.shape[1], nm)
    fit = fit_kernel(Xa, ya, nm)
    idx = np.unique(np.asarray(T, dtype=np.int64).ravel())
    if idx.size and (idx.min() < 0 or idx.max() >= fit.n):
        raise ValueError(f"T holds row indices outside [0, {fit.n})")
    XT = Xa[idx]
    M = fit.Sigma - XT.T @ XT
    w = np.linalg.eigvalsh(M)
    if w[0] <= SINGULAR_TOL * np.linalg.eigvalsh(fit.Sigma)[-1]:
        return float("nan")
    return float(-np.linalg.solve(M, XT.T @ fit.resid[idx])[e])
