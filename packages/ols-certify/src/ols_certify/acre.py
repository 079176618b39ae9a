"""ACRE: the certified upper bound U(k) on the move of β_e toward zero from removing any k samples.

Spec §"Decomposition" (paper Section 3). For T ⊂ [n], S = Σ_{i∈T} x̃_i x̃_iᵀ, v = Σ_{i∈T} x̃_i R_i,
λ = λ_max(S) < 1:

    Δ_T = β_e − β_e(T) (sign-adjusted) = Σ_{i∈T} Z_iR_i + ⟨Sẽ, v⟩ + (Sẽ)ᵀS(I − S)⁻¹v,
    |third term| ≤ ‖Σ_T x̃_i Z_i‖ · λ/(1 − λ) · ‖Σ_T x̃_i R_i‖.

Each piece is bounded by a Problem-1 relaxation of a Gram matrix (``problem1``):
lin(k) (exact top-k of Z_iR_i), xzr(k) (G = ½(Z_iR_j + Z_jR_i)H_ij), xr(k) = √P1(R_iR_jH_ij),
xz(k) = √P1(Z_iZ_jH_ij), cs(k) = √P1(H_ij²) ≥ ‖S‖_F ≥ λ, with H_ij = ⟨x̃_i, x̃_j⟩. Then

    U(k) = lin(k) + xzr(k) + cs(k)·xr(k)·xz(k)/(1 − cs(k)),   U(k) = +inf when cs(k) ≥ 1,

made non-decreasing by a running maximum so that it bounds every removal of *at most* k samples.
k_LB = min{k : U(k) ≥ τ}: no set of fewer than k_LB removals moves β_e by τ toward zero.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ols_certify._problem import Problem, prepare, resolve_k_max
from ols_certify.problem1 import spectral_bound, triangle_bound, triangle_bound_blocked

Threshold = str | float | tuple[str, float]


@dataclass(frozen=True)
class Bounds:
    """ACRE's pieces for k = 1..k_max (index k − 1), all in units of β_e.

    Attributes:
        linear: sum of the k largest Z_iR_i (the first-order/AMIP term; exact maximum).
        xzr: Problem-1 bound on ⟨Sẽ, v⟩.
        xr: bound on ‖Σ_T x̃_iR_i‖; xz: bound on ‖Σ_T x̃_iZ_i‖; cs: bound on λ_max(S) (unitless).
        raw: linear + xzr + cs·xr·xz/(1 − cs) (+inf where cs ≥ 1), before the running maximum.
        total: running maximum of ``raw``: U(k), a bound over all removals of at most k samples.
    """

    linear: np.ndarray
    xzr: np.ndarray
    xr: np.ndarray
    xz: np.ndarray
    cs: np.ndarray
    raw: np.ndarray
    total: np.ndarray

    @property
    def k(self) -> np.ndarray:
        return np.arange(1, self.total.size + 1)

    @property
    def k_singular(self) -> int | None:
        """The smallest k at which the bound cannot exclude a singular refit (cs(k) ≥ 1), if any."""
        hit = np.nonzero(self.cs >= 1.0)[0]
        return int(hit[0]) + 1 if hit.size else None


@dataclass(frozen=True)
class Certificate:
    """A certified lower bound on the number of removals that change the conclusion.

    Attributes:
        k_lb: no set of fewer than ``k_lb`` removed samples moves β_e by ``tau`` toward zero. ``0`` when
            τ ≤ 0 (the conclusion already fails with no removal); ``k_max + 1`` when U(k) < τ for all
            k ≤ k_max (``exhausted``; the true number may be larger).
        tau: the threshold on the move toward zero (units of β_e).
        threshold: the rule in words.
        beta_e, se_e: the fitted coefficient (signed) and its classical standard error.
        bounds: the ACRE pieces.
        exhausted: True when U never reached τ up to k_max.
    """

    k_lb: int
    tau: float
    threshold: str
    beta_e: float
    se_e: float
    bounds: Bounds
    exhausted: bool


def resolve_threshold(threshold: Any, beta_e: float, se_e: float) -> tuple[float, str]:
    """τ (the move of β_e toward zero that changes the conclusion) and the rule in words.

    - ``"sign"``: τ = |β_e| (the sign flips or β_e reaches 0).
    - ``("se", c)``: τ = c·SE (β_e moves by c standard errors; the official synthetic plot's 2σ rule).
    - ``("significance", c)``: τ = |β_e| − c·SE (|β_e(T)| falls below c full-data standard errors).
    - a number: τ itself.
    """
    if isinstance(threshold, str):
        if threshold != "sign":
            raise ValueError(
                f"threshold must be 'sign', a number, ('se', c) or ('significance', c); got {threshold!r}"
            )
        return abs(beta_e), "sign flip: τ = |β_e|"
    if isinstance(threshold, tuple):
        if len(threshold) != 2 or threshold[0] not in ("se", "significance"):
            raise ValueError(f"a tuple threshold must be ('se', c) or ('significance', c), got {threshold!r}")
        c = float(threshold[1])
        if not math.isfinite(c) or c <= 0:
            raise ValueError(
                f"the multiple c of the standard error must be finite and > 0, got {threshold[1]!r}"
            )
        if threshold[0] == "se":
            return c * se_e, f"move of {c:g}·SE toward zero: τ = {c:g}·SE"
        return abs(beta_e) - c * se_e, f"loses significance at {c:g}·SE: τ = |β_e| − {c:g}·SE"
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float, np.floating, np.integer)):
        raise TypeError(f"threshold must be 'sign', a number or a tuple, got {type(threshold).__name__}")
    tau = float(threshold)
    if not math.isfinite(tau):
        raise ValueError(f"threshold must be finite, got {tau}")
    return tau, f"move of {tau:g} toward zero"


def first_crossing(total: np.ndarray, tau: float) -> tuple[int, bool]:
    """(k_LB, exhausted) for a non-decreasing U (k = 1..len) and threshold τ."""
    if tau <= 0:
        return 0, False
    hit = np.nonzero(total >= tau)[0]
    if hit.size == 0:
        return total.size + 1, True
    return int(hit[0]) + 1, False


def combine(
    linear: np.ndarray, xzr: np.ndarray, p1_xr: np.ndarray, p1_xz: np.ndarray, p1_cs: np.ndarray
) -> Bounds:
    """Assemble U(k) from the Problem-1 bounds (norm pieces clipped at 0 before the root: spec pitfall)."""
    xr = np.sqrt(np.maximum(p1_xr, 0.0))
    xz = np.sqrt(np.maximum(p1_xz, 0.0))
    cs = np.sqrt(np.maximum(p1_cs, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        third = np.where(cs < 1.0, cs * xr * xz / (1.0 - cs), np.inf)
    raw = linear + xzr + third
    return Bounds(linear, xzr, xr, xz, cs, raw, np.maximum.accumulate(raw))


def _linear(w_Z: np.ndarray, w_R: np.ndarray, k_max: int) -> np.ndarray:
    return np.cumsum(-np.sort(-(w_Z * w_R)))[:k_max]


def bounds_from_problem(p: Problem, k_max: int, *, spectral: bool = False, block: int = 512) -> Bounds:
    Q, Z, R = p.w.Xt, p.w.Z, p.w.R
    n = p.n

    def rows(f: Callable[[np.ndarray, slice], np.ndarray]) -> Callable[[int, int], np.ndarray]:
        return lambda a, b: f(Q[a:b] @ Q.T, slice(a, b))

    grams = {
        "xzr": rows(lambda H, s: 0.5 * (Z[s, None] * R[None, :] + R[s, None] * Z[None, :]) * H),
        "xr": rows(lambda H, s: (R[s, None] * R[None, :]) * H),
        "xz": rows(lambda H, s: (Z[s, None] * Z[None, :]) * H),
        "cs": rows(lambda H, s: np.square(H, out=H)),
    }
    p1: dict[str, np.ndarray] = {}
    for name, fn in grams.items():
        if spectral:
            G = fn(0, n)
            p1[name] = np.minimum(triangle_bound(G, k_max), spectral_bound(G, k_max))
            del G
        else:
            p1[name] = triangle_bound_blocked(fn, n, k_max, block)
    return combine(_linear(Z, R, k_max), p1["xzr"], p1["xr"], p1["xz"], p1["cs"])


def acre_bounds(
    X: Any,
    y: Any,
    coef: Any,
    k_max: int | None = None,
    *,
    spectral: bool = False,
    block: int = 512,
    names: Sequence[str] | None = None,
) -> Bounds:
    """ACRE's bound U(k) on the move of β_e toward zero from removing at most k samples, k = 1..k_max.

    Args:
        X: (n, d) design (intercept/dummies as columns), full column rank, finite; y: (n,).
        coef: index or name of the coefficient of interest.
        k_max: largest k (default ``min(n − 1, max(n // 10, 10))``, the official k_max_factor 0.1).
        spectral: also compute the O(n³) eigenvalue bound and take the minimum (dense n×n; small n only).
        block: rows of each Gram matrix held at a time (memory ≈ 8·(n·k_max + 3·block·n) bytes).
    """
    p = prepare(X, y, coef, names)
    return bounds_from_problem(p, resolve_k_max(k_max, p.n), spectral=spectral, block=block)


def certify(
    X: Any,
    y: Any,
    coef: Any,
    threshold: Threshold = "sign",
    k_max: int | None = None,
    *,
    spectral: bool = False,
    block: int = 512,
    names: Sequence[str] | None = None,
) -> Certificate:
    """Certify how many removals the conclusion about β_e survives.

    Returns a :class:`Certificate` whose ``k_lb`` is the smallest k with U(k) ≥ τ (see
    :func:`resolve_threshold` for the threshold rules). Example::

        cert = certify(X, y, coef=1, threshold=("se", 2))
        cert.k_lb  # no set of fewer samples moves β_1 by 2 standard errors toward zero
    """
    p = prepare(X, y, coef, names, conclusion=True)
    return certificate_from_problem(p, threshold, resolve_k_max(k_max, p.n), spectral=spectral, block=block)


def certificate_from_problem(
    p: Problem, threshold: Threshold, k_max: int, *, spectral: bool = False, block: int = 512
) -> Certificate:
    tau, words = resolve_threshold(threshold, float(p.fit.beta[p.e]), p.se_e)
    b = bounds_from_problem(p, k_max, spectral=spectral, block=block)
    k_lb, exhausted = first_crossing(b.total, tau)
    return Certificate(k_lb, tau, words, float(p.fit.beta[p.e]), p.se_e, b, exhausted)
