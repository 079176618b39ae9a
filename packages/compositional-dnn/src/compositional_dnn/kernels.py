"""Matérn kernels on the root-mean-square distance, and Gaussian-process sampling.

The official generator (``MaternKernel.py``) measures distance as the *root mean square* of the coordinate
differences, with length-scale 1:

    r(x, x') = sqrt( (1/d) sum_k (x_k - x'_k)^2 )

and uses the Matérn correlation

    K_nu(r) = 2^{1-nu} / Gamma(nu) * (sqrt(2 nu) r)^nu * K_nu(sqrt(2 nu) r),   K_nu(0) = 1,

with the closed forms

    nu = 0.5:  exp(-r)
    nu = 1.5:  (1 + sqrt(3) r) exp(-sqrt(3) r)
    nu = 2.5:  (1 + sqrt(5) r + 5 r^2 / 3) exp(-sqrt(5) r)
    nu = inf:  exp(-r^2 / 2)

(the Bessel form, ``scipy.special.kv``, for any other nu > 0; about ten times slower). A GP sample with
``n_out`` independent columns is ``L @ E`` with ``L L^T = K + jitter I`` and ``E`` standard normal; the
jitter starts at 0 and escalates by x100 from 1e-10 up to 1e-2 until Cholesky succeeds (the official code
retries once with float32 eps ~ 1.2e-7). The jitter used is returned so runs can record it.
"""

from __future__ import annotations

import math

import numpy as np
from paperkit import check_array, check_instance, check_int, check_number
from scipy.special import gamma, kv

__all__ = [
    "CLOSED_FORM_NUS", "check_nu", "matern", "matern_bessel", "matern_kernel", "rms_distance", "sample_gp",
]  # fmt: skip

CLOSED_FORM_NUS = (0.5, 1.5, 2.5, math.inf)
JITTERS = (0.0, 1e-10, 1e-8, 1e-6, 1e-4, 1e-2)


def check_nu(nu: float, name: str = "nu") -> float:
    """A smoothness parameter: a real number > 0, or ``math.inf`` (the Gaussian kernel)."""
    return check_number(nu, name, low=0, low_open=True, finite=False)


def rms_distance(X: np.ndarray, X2: np.ndarray | None = None) -> np.ndarray:
    """``(n, m)`` root-mean-square distances between the rows of ``X (n, d)`` and ``X2 (m, d)`` (float64)."""
    X = np.asarray(check_array(X, "X", ndim=2, kind="fiu"), float)
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"X must have at least one row and one column, got shape {X.shape}")
    Y = X if X2 is None else np.asarray(check_array(X2, "X2", shape=(None, X.shape[1]), kind="fiu"), float)
    if len(Y) == 0:
        raise ValueError(f"X2 must have at least one row, got shape {Y.shape}")
    sq = (X**2).sum(1)[:, None] + (Y**2).sum(1)[None, :] - 2.0 * (X @ Y.T)
    D = np.sqrt(np.maximum(sq, 0.0) / X.shape[1])
    if X2 is None:
        np.fill_diagonal(D, 0.0)  # exact zeros on the diagonal despite cancellation
    return D


def matern(r: np.ndarray, nu: float) -> np.ndarray:
    """The Matérn correlation ``K_nu(r)`` elementwise (``r >= 0``); closed forms where they exist."""
    nu = check_nu(nu)
    r = np.asarray(check_array(r, "r", kind="fiu"), float)
    if np.any(r < 0):
        raise ValueError(f"r must be >= 0 (a distance), got minimum {float(r.min())}")
    return _matern(r, nu)


def _matern(r: np.ndarray, nu: float) -> np.ndarray:
    """``matern`` on validated input, in place where it can (the Gram matrices are the hot path)."""
    if nu == 0.5:
        return np.exp(-r)
    if nu == 1.5:
        s = math.sqrt(3.0) * r
        return np.exp(-s) * (1.0 + s)
    if nu == 2.5:
        s = math.sqrt(5.0) * r
        return np.exp(-s) * (1.0 + s + s**2 / 3.0)
    if math.isinf(nu):
        return np.exp(-0.5 * r**2)
    return _bessel(r, nu)


def matern_bessel(r: np.ndarray, nu: float) -> np.ndarray:
    """The general Bessel form of ``K_nu(r)`` for finite ``nu > 0`` (also at the closed-form nus)."""
    nu = check_number(nu, "nu", low=0, low_open=True)
    r = np.asarray(check_array(r, "r", kind="fiu"), float)
    if np.any(r < 0):
        raise ValueError(f"r must be >= 0 (a distance), got minimum {float(r.min())}")
    return _bessel(r, nu)


def _bessel(r: np.ndarray, nu: float) -> np.ndarray:
    s = math.sqrt(2.0 * nu) * r
    zero = s == 0.0
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        out = kv(nu, s)
        out *= s**nu
        out *= 2.0 ** (1.0 - nu) / gamma(nu)
    out[zero] = 1.0  # the limit r -> 0 (kv overflows there)
    return np.nan_to_num(out, copy=False, nan=0.0, posinf=1.0)  # s**nu * kv is 0*inf for huge r


def matern_kernel(X: np.ndarray, nu: float, X2: np.ndarray | None = None) -> np.ndarray:
    """Gram matrix ``K_nu(r(x_i, x'_j))`` (float64); with ``X2 = None`` the diagonal is exactly 1."""
    nu = check_nu(nu)
    D = rms_distance(X, X2)
    if X2 is not None or nu in CLOSED_FORM_NUS:
        return _matern(D, nu)
    iu = np.triu_indices(len(D), 1)  # symmetric: the Bessel form (the expensive one) on one triangle only
    K = np.eye(len(D))
    K[iu] = _bessel(D[iu], nu)
    K.T[iu] = K[iu]
    return K


def sample_gp(X: np.ndarray, nu: float, n_out: int, rng: np.random.Generator) -> tuple[np.ndarray, float]:
    """``(samples (n, n_out), jitter)``: ``n_out`` independent draws of the zero-mean GP with kernel
    ``K_nu`` at the rows of ``X``, by Cholesky with escalating jitter."""
    check_instance(rng, "rng", np.random.Generator)
    n_out = check_int(n_out, "n_out", low=1)
    K = matern_kernel(X, nu)
    eye = np.eye(len(K))
    for jitter in JITTERS:
        try:
            L = np.linalg.cholesky(K + jitter * eye if jitter else K)
        except np.linalg.LinAlgError:
            continue
        return L @ rng.standard_normal((len(K), n_out)), jitter
    raise np.linalg.LinAlgError(f"Cholesky failed even with jitter {JITTERS[-1]} (nu = {nu})")
