"""What the paper compares against (spec §"Baselines to ship beside it").

- :func:`brute_force`: the exact maximal move of β_e toward zero over all sets of k removals (tiny n);
  ground truth for the minimal flipping set.
- :func:`amip` (Broderick, Giordano & Meager 2020) and :func:`kzc21` (Kuschnig, Zens & Crespo Cuaresma 2021):
  candidate finders. Each proposes nested removal sets and we evaluate the *exact* refit effect of each, so
  the first one that reaches τ is an upper bound on the true number of removals needed.
- :func:`freund_hopkins`: the spectral certificate of Freund & Hopkins (2023) as the official code
  implements it (``compute_freund_hopkins``), a weaker certificate than ACRE.

Convention shared with the certificate: a removal that makes Σ − Σ_T singular (β_e not identified after the
refit) counts as an infinite move (the conclusion is lost).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ols_certify._problem import Problem, prepare, resolve_k_max
from ols_certify.acre import Threshold, first_crossing, resolve_threshold
from ols_certify.ols import SINGULAR_TOL

LEVERAGE_TOL = 1e-10  # 1 − h_ii below this: removing sample i makes the design singular
ALPHA_GAUSSIAN = 2.0 / 3.0  # official hypercontractivity_reduction.py: the Gaussian 4th-moment weight


@dataclass(frozen=True)
class Candidates:
    """Nested candidate removal sets: the first k entries of ``order``, for k = 1..len(order).

    Attributes:
        order: (k_max,) row indices in removal order.
        effects: (k_max,) exact move of β_e toward zero after removing order[:k] (+inf once singular).
        k: the first k whose effect reaches τ (an upper bound on the true minimum), or None.
        tau: the threshold used.
    """

    order: np.ndarray
    effects: np.ndarray
    k: int | None
    tau: float

    @property
    def removal_set(self) -> np.ndarray | None:
        """The rows of the first candidate set that reaches τ (None if none does)."""
        return None if self.k is None else np.sort(self.order[: self.k])


@dataclass(frozen=True)
class BruteForce:
    """Exact results by enumeration.

    Attributes:
        max_effect: (k_max,) max over |T| = k of the move toward zero (+inf if some T of that size is
            singular).
        argmax: the maximising set for each k.
        k_true: the smallest k with max_effect ≥ τ (the exact stability), or None if > k_max.
        tau: the threshold used.
    """

    max_effect: np.ndarray
    argmax: list[np.ndarray]
    k_true: int | None
    tau: float

    @property
    def at_most(self) -> np.ndarray:
        """(k_max,) max over |T| ≤ k (running maximum of ``max_effect``)."""
        return np.maximum.accumulate(self.max_effect)


@dataclass(frozen=True)
class FreundHopkins:
    """The FH23 certificate U_FH(k) = ‖ẽ‖·√(C1 k)/(1 − √(C2 k)) (+inf when C2·k ≥ 1).

    Attributes:
        total: (k_max,) U_FH(k); C1 = λ_max(Σ_i R_i² x̃_ix̃_iᵀ); C2 = the 4–2 hypercontractivity constant
        (bound on λ_max(S)² / k); et_norm = ‖ẽ‖ = √(Σ⁻¹)_ee; k_lb: first k with U_FH ≥ τ (0 if τ ≤ 0).
    """

    total: np.ndarray
    C1: float
    C2: float
    et_norm: float
    k_lb: int
    tau: float


def _prepare(
    X: Any, y: Any, coef: Any, k_max: int | None, threshold: Threshold, names: Sequence[str] | None
) -> tuple[Problem, int, float]:
    """The public baselines' common start: the validated problem, the resolved k_max and the threshold τ."""
    p = prepare(X, y, coef, names)
    k = resolve_k_max(k_max, p.n)
    tau, _ = resolve_threshold(threshold, float(p.fit.beta[p.e]), p.se_e)
    return p, k, tau


def _k_of(effects: np.ndarray, tau: float) -> int | None:
    k, exhausted = first_crossing(np.maximum.accumulate(effects), tau)
    return None if exhausted else k


# ---------------------------------------------------------------- brute force


def brute_force_problem(p: Problem, k_max: int, tau: float, batch: int = 20000) -> BruteForce:
    X, r, e, s = p.X, p.fit.resid, p.e, p.w.sign
    Sigma = p.fit.Sigma
    scale = float(np.linalg.eigvalsh(Sigma)[-1])
    best = np.full(k_max, -np.inf)
    argmax: list[np.ndarray] = [np.empty(0, dtype=np.int64)] * k_max
    for k in range(1, k_max + 1):
        it = itertools.combinations(range(p.n), k)
        while True:
            chunk = np.array(list(itertools.islice(it, batch)), dtype=np.int64)
            if chunk.size == 0:
                break
            XT = X[chunk]  # (m, k, d)
            M = Sigma - np.einsum("mki,mkj->mij", XT, XT)
            b = np.einsum("mki,mk->mi", XT, r[chunk])
            lam_min = np.linalg.eigvalsh(M)[:, 0]
            sing = lam_min <= SINGULAR_TOL * scale
            eff = np.full(chunk.shape[0], np.inf)
            if (~sing).any():
                sol = np.linalg.solve(M[~sing], b[~sing][..., None])[..., 0]
                eff[~sing] = s * sol[:, e]  # β_e − β_e(T), sign-adjusted
            j = int(np.argmax(eff))
            if eff[j] > best[k - 1]:
                best[k - 1], argmax[k - 1] = eff[j], chunk[j]
    return BruteForce(best, argmax, _k_of(best, tau), tau)


def brute_force(
    X: Any,
    y: Any,
    coef: Any,
    k_max: int,
    threshold: Threshold = "sign",
    *,
    names: Sequence[str] | None = None,
) -> BruteForce:
    """Exact maximal move of β_e toward zero over every set of k ≤ k_max removed rows (Σ_k C(n, k) refits).

    Each refit solves (Σ − X_TᵀX_T)δ = X_Tᵀr_T in the original coordinates (independent of the whitening
    the certificate uses). Only for tiny n (n = 20, k_max = 4: 6,195 refits).
    """
    p, k, tau = _prepare(X, y, coef, k_max, threshold, names)
    return brute_force_problem(p, k, tau)


# ---------------------------------------------------------------- exact effects of nested sets


def prefix_effects(p: Problem, order: np.ndarray) -> np.ndarray:
    """Exact move toward zero after removing order[:k], k = 1..len(order) (Sherman–Morrison, O(d²) each)."""
    Q, R, et = p.w.Xt, p.w.R, p.w.et
    d = Q.shape[1]
    A = np.eye(d)  # (I − S)⁻¹ in whitened coordinates
    v = np.zeros(d)
    out = np.full(order.size, np.inf)
    for t, i in enumerate(order):
        q = Q[i]
        Aq = A @ q
        denom = 1.0 - q @ Aq
        if denom <= LEVERAGE_TOL:
            break  # singular from here on: the rest stays +inf
        A += np.outer(Aq, Aq) / denom
        v += q * R[i]
        out[t] = et @ A @ v
    return out


def amip_problem(p: Problem, k_max: int, tau: float) -> Candidates:
    infl = p.w.Z * p.w.R  # first-order influence of removing i on the move toward zero
    order = np.argsort(-infl, kind="stable")[:k_max]
    eff = prefix_effects(p, order)
    return Candidates(order, eff, _k_of(eff, tau), tau)


def amip(
    X: Any,
    y: Any,
    coef: Any,
    k_max: int | None = None,
    threshold: Threshold = "sign",
    *,
    names: Sequence[str] | None = None,
) -> Candidates:
    """AMIP (BGM20): remove samples in decreasing order of their first-order influence on β_e.

    The influence of sample i is e ᵀΣ⁻¹x_i r_i = Z_iR_i (closed form of the official code's autograd
    gradient); the effect of each prefix is the exact refit.
    """
    p, k, tau = _prepare(X, y, coef, k_max, threshold, names)
    return amip_problem(p, k, tau)


def kzc21_problem(p: Problem, k_max: int, tau: float) -> Candidates:
    X, e, s = p.X, p.e, p.w.sign
    n = p.n
    A = np.linalg.inv(p.fit.Sigma)
    P = X @ A  # rows (Σ_T^c)⁻¹ x_i
    r = p.fit.resid.copy()
    alive = np.ones(n, dtype=bool)
    order = np.full(k_max, -1, dtype=np.int64)
    eff = np.full(k_max, np.inf)
    total = 0.0
    for t in range(k_max):
        h = np.einsum("ij,ij->i", P, X)
        one_minus = 1.0 - h
        with np.errstate(divide="ignore", invalid="ignore"):
            gain = np.where(one_minus > LEVERAGE_TOL, s * P[:, e] * r / one_minus, np.inf)
        gain[~alive] = -np.inf
        j = int(np.argmax(gain))
        order[t] = j
        if not math.isfinite(gain[j]):
            fill = np.nonzero(alive)[0]
            fill = fill[fill != j][: k_max - t - 1]
            order[t + 1 : t + 1 + fill.size] = fill
            break
        total += gain[j]
        eff[t] = total
        c = r[j] / one_minus[j]
        u = P[j].copy()  # (Σ_T^c)⁻¹ x_j
        Xu = X @ u
        r += Xu * c
        P += np.outer(Xu, u) / one_minus[j]
        alive[j] = False
    return Candidates(order, eff, _k_of(eff, tau), tau)


def kzc21(
    X: Any,
    y: Any,
    coef: Any,
    k_max: int | None = None,
    threshold: Threshold = "sign",
    *,
    names: Sequence[str] | None = None,
) -> Candidates:
    """KZC21 greedy: repeatedly remove the sample whose leave-one-out refit moves β_e most toward zero.

    All leave-one-out fits of each round come from Sherman–Morrison,
    β_{−i} = β − (Σ_T^c)⁻¹x_i r_i/(1 − h_ii), with rank-one updates of (Σ_T^c)⁻¹X and the residuals after each
    removal: O(n·d) per round, O(k_max·n·d) in all.
    """
    p, k, tau = _prepare(X, y, coef, k_max, threshold, names)
    return kzc21_problem(p, k, tau)


def kzc21_naive(X: np.ndarray, y: np.ndarray, coef: int, k_max: int) -> tuple[np.ndarray, np.ndarray]:
    """Reference KZC21 by explicit refits (np.linalg.lstsq for every candidate each round; tests only).

    Returns (order, effects) like :func:`kzc21` (no singular handling: assumes every refit is identified).
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    beta0 = np.linalg.lstsq(X, y, rcond=None)[0][coef]
    s = -1.0 if beta0 < 0 else 1.0
    removed: list[int] = []
    effects = []
    for _ in range(k_max):
        best, best_i = -np.inf, -1
        for i in range(X.shape[0]):
            if i in removed:
                continue
            keep = np.setdiff1d(np.arange(X.shape[0]), [*removed, i])
            b = np.linalg.lstsq(X[keep], y[keep], rcond=None)[0][coef]
            if s * (beta0 - b) > best:
                best, best_i = s * (beta0 - b), i
        removed.append(best_i)
        effects.append(best)
    return np.array(removed), np.array(effects)


# ---------------------------------------------------------------- Freund & Hopkins


def hypercontractivity_constant(Q: np.ndarray, alpha: float = ALPHA_GAUSSIAN, block: int = 1024) -> float:
    """C2 = λ_max(M′ᵀM′) of the official ``bound_42_hypercontractivity_gm``, for whitened rows Q (n, d).

    M has rows vec(x̃_ix̃_iᵀ) (so (M vec(vvᵀ))_i = ⟨x̃_i, v⟩²), M′ = M·W^{−1/2} with
    W = αI + d(1 − α)φφᵀ/d, φ = vec(I), and (vec vvᵀ)ᵀW(vec vvᵀ) = ‖v‖⁴. Then for |T| = k,
    λ_max(S_T) = max_v 1_TᵀM′(W^{1/2}vec vvᵀ) ≤ √(k·C2). Dense d²×d² accumulation for d ≤ 20, else Lanczos
    on the implicit operator (memory O(n·d + d²)).
    """
    n, d = Q.shape
    c_i = math.sqrt(1.0 / alpha)
    c_phi = math.sqrt(1.0 / (alpha + d * (1.0 - alpha))) - c_i
    phi = np.eye(d).reshape(-1)

    def w_half_inv(u: np.ndarray) -> np.ndarray:
        return c_i * u + c_phi * phi * (phi @ u) / d

    if d <= 20:
        MtM = np.zeros((d * d, d * d))
        for a in range(0, n, block):
            q = Q[a : a + block]
            Mb = np.einsum("bi,bj->bij", q, q).reshape(q.shape[0], d * d)
            MtM += Mb.T @ Mb
        W = c_i * np.eye(d * d) + c_phi * np.outer(phi, phi) / d
        return float(np.linalg.eigvalsh(W @ MtM @ W)[-1])

    def matvec(u: np.ndarray) -> np.ndarray:
        U = w_half_inv(np.asarray(u).ravel()).reshape(d, d)
        U = (U + U.T) / 2  # M only sees the symmetric part
        m = np.einsum("ij,ij->i", Q @ U, Q)  # M vec U
        return w_half_inv(((Q * m[:, None]).T @ Q).reshape(-1))  # Mᵀ m

    import scipy.sparse.linalg

    op = scipy.sparse.linalg.LinearOperator((d * d, d * d), matvec=matvec, dtype=np.float64)
    v0 = w_half_inv(phi)
    val = scipy.sparse.linalg.eigsh(op, k=1, which="LA", v0=v0, return_eigenvectors=False)
    return float(val[0])


def freund_hopkins_problem(
    p: Problem, k_max: int, tau: float, alpha: float = ALPHA_GAUSSIAN
) -> FreundHopkins:
    Q, R = p.w.Xt, p.w.R
    XR = Q * R[:, None]
    C1 = float(np.linalg.eigvalsh(XR.T @ XR)[-1])
    C2 = hypercontractivity_constant(Q, alpha)
    et_norm = float(np.linalg.norm(p.w.et))
    k = np.arange(1, k_max + 1, dtype=np.float64)
    with np.errstate(divide="ignore"):
        total = np.where(C2 * k < 1.0, et_norm * np.sqrt(C1 * k) / (1.0 - np.sqrt(C2 * k)), np.inf)
    k_lb, _ = first_crossing(total, tau)
    return FreundHopkins(total, C1, C2, et_norm, k_lb, tau)


def freund_hopkins(
    X: Any,
    y: Any,
    coef: Any,
    k_max: int | None = None,
    threshold: Threshold = "sign",
    *,
    alpha: float = ALPHA_GAUSSIAN,
    names: Sequence[str] | None = None,
) -> FreundHopkins:
    """FH23's certificate: Δ_T ≤ ‖ẽ‖‖v‖/(1 − λ) with ‖v‖ ≤ √(C1 k) and λ ≤ √(C2 k).

    Note: the official code omits the factor ‖ẽ‖ (it is 1 only when Σ⁻¹_ee = 1); we keep it, which makes
    the bound sound and invariant to rescaling column e.
    """
    p, k, tau = _prepare(X, y, coef, k_max, threshold, names)
    return freund_hopkins_problem(p, k, tau, alpha)
