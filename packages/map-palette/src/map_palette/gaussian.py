"""The closed-form case: rewards r ~ N(μ, Σ) under p0 (spec data A (i)).

    log E_{p0} e^{λᵀr} = λᵀμ + ½ λᵀΣλ,     E_{p_λ} r = μ + Σλ,     p_λ = N(μ + Σλ, Σ)
    g(λ) = λᵀ(c − μ) − ½ λᵀΣλ,             λ* = argmax_{λ≥0} g (a non-negative QP)
    KL(p_λ* ‖ p0) = ½ λ*ᵀΣλ* = g(λ*)

:func:`gaussian_lambda_star` solves the QP exactly by enumerating active sets (KKT: on the support S,
Σ_SS λ_S = (c − μ)_S; off it, (μ + Σλ)_i ≥ c_i), an oracle independent of any iterative solver; it is
meant for m ≤ 12. One value: λ* = max(0, (c − μ)/σ²).
"""

from __future__ import annotations

import itertools

import numpy as np
from paperkit import check_array, check_int, check_matrix_pd

from map_palette.solvers import box_ascent

__all__ = ["gaussian_dual", "gaussian_lambda_star", "gaussian_solve", "gaussian_tilted_mean"]


def _check(
    mu: object, Sigma: object, c: object, *, c_name: str = "c"
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    mu_a = np.asarray(check_array(mu, "mu", ndim=1, kind="fiu"), float)
    if mu_a.size == 0:
        raise ValueError("mu must hold at least one value's mean, got shape (0,)")
    S = np.asarray(check_matrix_pd(Sigma, "Sigma"), float)
    c_a = np.asarray(check_array(c, c_name, shape=(mu_a.size,), kind="fiu"), float)
    if S.shape != (mu_a.size, mu_a.size):
        raise ValueError(f"Sigma must be ({mu_a.size}, {mu_a.size}) to match mu, got {S.shape}")
    return mu_a, S, c_a


def gaussian_dual(
    lam: np.ndarray, mu: np.ndarray, Sigma: np.ndarray, c: np.ndarray
) -> tuple[float, np.ndarray]:
    """(g(λ), ∇g(λ)) of the Gaussian dual."""
    return float(lam @ (c - mu) - 0.5 * lam @ Sigma @ lam), (c - mu) - Sigma @ lam


def gaussian_tilted_mean(lam: object, mu: object, Sigma: object) -> np.ndarray:
    """E_{p_λ} r = μ + Σλ."""
    mu_a, S, lam_a = _check(mu, Sigma, lam, c_name="lam")
    return mu_a + S @ lam_a


def gaussian_lambda_star(mu: object, Sigma: object, c: object) -> np.ndarray:
    """The exact λ* by active-set enumeration (module docstring)."""
    mu_a, S, c_a = _check(mu, Sigma, c)
    m = check_int(mu_a.size, "len(mu)", low=1, high=12)
    d = c_a - mu_a
    best, best_g = np.zeros(m), 0.0
    for k in range(1, m + 1):
        for support in itertools.combinations(range(m), k):
            idx = list(support)
            lam = np.zeros(m)
            lam[idx] = np.linalg.solve(S[np.ix_(idx, idx)], d[idx])
            if np.any(lam[idx] < 0) or np.any(S @ lam < d - 1e-12):
                continue
            g = float(lam @ d - 0.5 * lam @ S @ lam)
            if g > best_g:
                best, best_g = lam, g
    return best


def gaussian_solve(mu: object, Sigma: object, c: object, *, max_iter: int = 1000) -> np.ndarray:
    """λ* by the package's L-BFGS-B ascent on the closed-form dual (what :func:`solve_lambda` runs)."""
    mu_a, S, c_a = _check(mu, Sigma, c)
    max_iter = check_int(max_iter, "max_iter", low=1)
    x, _, _ = box_ascent(lambda lam: gaussian_dual(lam, mu_a, S, c_a), np.zeros(mu_a.size), max_iter=max_iter)
    return x
