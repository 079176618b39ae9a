r"""Risk-sensitive (LEQR) Riccati recursions and the exact criterion of linear policies.

Criterion (conditional on the initial state, the convention used throughout the package)::

    J^π(x0) = (2/γ) · log E[ exp( (γ/2) · C ) | x0 ],
    C = Σ_{t=0}^{T-1} (x_tᵀ Q x_t + u_tᵀ R u_t) + x_Tᵀ Q_T x_T,
    x_{t+1} = A x_t + B u_t + w_t,  w_t ~ N(0, W).

γ > 0 is risk-averse, γ < 0 risk-seeking, and γ = 0 is the risk-neutral limit J = E[C | x0], which
is evaluated by its own formulas (never by dividing by γ). Every J here is a quadratic function
J(x0) = x0ᵀ P_0 x0 + c_0 of the initial state; all quantities are in the units of the cost C.

Optimal recursion (``leqr_gains``), with P_T = Q_T, c_T = 0 and for t = T-1, …, 0::

    P̃_{t+1} = (P_{t+1}⁻¹ - γ W)⁻¹ = P + γ P W^{1/2} (I - γ W^{1/2} P W^{1/2})⁻¹ W^{1/2} P
    K_t     = -(R + Bᵀ P̃_{t+1} B)⁻¹ Bᵀ P̃_{t+1} A
    P_t     = Q + K_tᵀ R K_t + (A + B K_t)ᵀ P̃_{t+1} (A + B K_t)
    c_t     = c_{t+1} - (1/γ) log det(I - γ W^{1/2} P_{t+1} W^{1/2})

The recursion is well posed only while I - γ W^{1/2} P_{t+1} W^{1/2} ≻ 0; otherwise the expectation
is +∞ ("neurotic breakdown"). The Woodbury form above is used because it needs neither P⁻¹ (P may be
singular, e.g. Q_T = 0) nor W⁻¹.

API: ``leqr_gains``, ``policy_value``, ``policy_cost``, ``stationary_leqr`` validate their arguments
(through ``paperkit.validation``: Q, Q_T ⪰ 0, R, W ≻ 0, finite γ); ``leqr_gains_kernel`` and
``policy_value_kernel`` are the same computations on trusted inputs, taking W^{1/2}, for the learners'
inner loops and for ``LEQRSystem``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike
from paperkit.validation import check_int, check_number, check_positive

from rslqr._linalg import FloatArray, as_float_array, check_matrix, check_symmetric, psd_sqrt

if TYPE_CHECKING:
    from rslqr.systems import LEQRSystem

__all__ = [
    "RiccatiBreakdown",
    "is_well_posed",
    "leqr_gains",
    "leqr_gains_kernel",
    "policy_cost",
    "policy_value",
    "policy_value_kernel",
    "stationary_leqr",
]


class RiccatiBreakdown(ValueError):
    """The risk-sensitive Riccati recursion is not well posed (the exponential criterion is +∞).

    Attributes:
        t: the step whose expectation diverges (P_{t+1} is the offending matrix); for
            ``stationary_leqr`` minus the fixed-point iteration count.
        eigenvalue: the smallest eigenvalue of I - γ W^{1/2} P_{t+1} W^{1/2} (≤ 0), or NaN when the
            recursion overflowed to a non-finite value instead.
        gamma: the risk parameter.
    """

    def __init__(self, t: int, eigenvalue: float, gamma: float, where: str | None = None) -> None:
        self.t = int(t)
        self.eigenvalue = float(eigenvalue)
        self.gamma = float(gamma)
        self.where = f"t={self.t}" if where is None else where
        if np.isnan(self.eigenvalue):
            msg = (
                f"risk-sensitive Riccati recursion breaks down at {self.where}: the value matrix "
                f"overflowed to a non-finite value (gamma={self.gamma:g})"
            )
        else:
            msg = (
                f"risk-sensitive Riccati recursion breaks down at {self.where}: "
                f"I - gamma W^1/2 P_(t+1) W^1/2 has eigenvalue {self.eigenvalue:.6g} <= 0 "
                f"(gamma={self.gamma:g}); the exponential criterion is +inf"
            )
        super().__init__(msg)

    def __reduce__(self) -> tuple[type[RiccatiBreakdown], tuple[int, float, float, str]]:
        # Custom __init__ signature: tell pickle how to rebuild (needed across processes).
        return (type(self), (self.t, self.eigenvalue, self.gamma, self.where))


# --------------------------------------------------------------------------------------------------
# Kernels. They trust their inputs (shapes, symmetry and definiteness are checked by the validated
# functions below, or by LEQRSystem) because they run once per refit / per episode inside the learners,
# and they take W^{1/2}, not W, so that its square root is computed once per system.


def _neg_logdet_over_gamma(lam: FloatArray, gamma: float) -> float:
    """-(1/γ) Σ log(1 - γ λ_i), continuous at γ = 0 where it equals Σ λ_i."""
    if gamma == 0.0:
        return float(np.sum(lam))
    # log1p keeps full relative accuracy when γλ is tiny (no cancellation as γ → 0).
    return float(-np.sum(np.log1p(-gamma * lam)) / gamma)


def _optimal_step(
    A: FloatArray,
    B: FloatArray,
    Q: FloatArray,
    R: FloatArray,
    Wh: FloatArray,
    P: FloatArray,
    gamma: float,
    t: int,
) -> tuple[FloatArray, FloatArray, float]:
    """One backward step of the optimal recursion: (K_t, P_t, c_t - c_{t+1}) from P = P_{t+1}."""
    lam, V = np.linalg.eigh(Wh @ P @ Wh)
    g = 1.0 - gamma * lam
    g_min = float(g.min())
    if not g_min > 0.0:  # also catches NaN
        raise RiccatiBreakdown(t, g_min, gamma)
    if gamma == 0.0:
        Pt = P
    else:
        PWV = P @ Wh @ V
        Pt = P + gamma * (PWV / g) @ PWV.T
    BtPt = B.T @ Pt
    K = np.asarray(-np.linalg.solve(R + BtPt @ B, BtPt @ A), dtype=np.float64)
    F = A + B @ K
    Pn = Q + K.T @ R @ K + F.T @ Pt @ F
    Pn = 0.5 * (Pn + Pn.T)
    if not np.all(np.isfinite(Pn)):
        raise RiccatiBreakdown(t, float("nan"), gamma)
    return K, Pn, _neg_logdet_over_gamma(lam, gamma)


def leqr_gains_kernel(
    A: FloatArray,
    B: FloatArray,
    Q: FloatArray,
    R: FloatArray,
    QT: FloatArray,
    Wh: FloatArray,
    T: int,
    gamma: float,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Kernel of :func:`leqr_gains` (same returns): validated inputs, ``Wh = W^{1/2}``, ``T >= 1``.

    Raises RiccatiBreakdown like ``leqr_gains``; used by the learners at every refit and by LEQRSystem.
    """
    n, m = B.shape
    K = np.empty((T, m, n))
    P = np.empty((T + 1, n, n))
    c = np.empty(T + 1)
    P[T] = 0.5 * (QT + QT.T)
    c[T] = 0.0
    # Overflow is detected and reported as a breakdown, so silence numpy's warnings on the way.
    with np.errstate(over="ignore", invalid="ignore"):
        for t in range(T - 1, -1, -1):
            K[t], P[t], dc = _optimal_step(A, B, Q, R, Wh, P[t + 1], gamma, t)
            c[t] = c[t + 1] + dc
    return K, P, c


# Overflow of an unstable closed loop is mapped to +inf inside, so numpy's warnings are silenced.
@np.errstate(over="ignore", invalid="ignore")
def policy_value_kernel(
    A: FloatArray,
    B: FloatArray,
    Q: FloatArray,
    R: FloatArray,
    QT: FloatArray,
    Wh: FloatArray,
    K: FloatArray,
    gamma: float,
    sigma: float,
) -> tuple[FloatArray, float]:
    """Kernel of :func:`policy_value`: (P_0, c_0) of u_t = K_t x_t + η_t, η_t ~ N(0, σ² I).

    Validated inputs, ``Wh = W^{1/2}``, K (T, m, n) finite, σ >= 0. (zeros, +inf) on breakdown/overflow.

    Per step, with ξ = (w_t, η_t) ~ N(0, S), S^{1/2} = blockdiag(W^{1/2}, σ I), P = P_{t+1}, F = A + B K_t:
    the exponent is quadratic in ξ with matrix M = [[P, PB], [BᵀP, R + BᵀPB]] and cross term N x,
    N = [[P F], [R K + Bᵀ P F]]; integrating the Gaussian gives, with G = I - γ S^{1/2} M S^{1/2},
    P_t = Q + KᵀRK + FᵀPF + γ Nᵀ S^{1/2} G⁻¹ S^{1/2} N and c_t = c_{t+1} - (1/γ) log det G.
    When σ = 0 the η block of G is the identity and is dropped.
    """
    T, m, n = K.shape
    P = 0.5 * (QT + QT.T)
    c = 0.0
    if sigma > 0.0:
        Sh = np.zeros((n + m, n + m))
        Sh[:n, :n] = Wh
        Sh[n:, n:] = sigma * np.eye(m)
        M = np.empty((n + m, n + m))
        N = np.empty((n + m, n))
    for t in range(T - 1, -1, -1):
        Kt = K[t]
        F = A + B @ Kt
        PF = P @ F
        if sigma > 0.0:
            PB = P @ B
            M[:n, :n] = P
            M[:n, n:] = PB
            M[n:, :n] = PB.T
            M[n:, n:] = R + B.T @ PB
            N[:n] = PF
            N[n:] = R @ Kt + PB.T @ F
            H = Sh @ M @ Sh
            SN = Sh @ N
        else:
            H = Wh @ P @ Wh
            SN = Wh @ PF
        if not np.all(np.isfinite(H)):
            return np.zeros((n, n)), float("inf")
        lam, V = np.linalg.eigh(H)
        g = 1.0 - gamma * lam
        if not float(g.min()) > 0.0:
            return np.zeros((n, n)), float("inf")
        Pn = Q + Kt.T @ R @ Kt + F.T @ PF
        if gamma != 0.0:
            Y = V.T @ SN
            Pn = Pn + gamma * (Y.T / g) @ Y
        P = 0.5 * (Pn + Pn.T)
        c += _neg_logdet_over_gamma(lam, gamma)
    if not (np.all(np.isfinite(P)) and np.isfinite(c)):
        return np.zeros((n, n)), float("inf")
    return P, c


# --------------------------------------------------------------------------------------------------
# Public API


def _check_problem(
    A: ArrayLike, B: ArrayLike, Q: ArrayLike, R: ArrayLike, W: ArrayLike, gamma: float
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray, FloatArray, float]:
    A_ = check_matrix(A, "A")
    if A_.shape[0] != A_.shape[1]:
        raise ValueError(f"A must be square (n, n), got shape {A_.shape}")
    n = A_.shape[0]
    B_ = check_matrix(B, "B")
    if B_.shape[0] != n:
        raise ValueError(f"B must have shape (n, m) = ({n}, m) to match A, got {B_.shape}")
    m = B_.shape[1]
    # Q ⪰ 0 and R ≻ 0 are what the recursion assumes; R = 0 or R = -I would give finite but
    # meaningless gains (the minimisation over u has no minimum), so they are refused here.
    Q_ = check_matrix(Q, "Q", (n, n))
    check_symmetric(Q_, "Q", definite=False)
    R_ = check_matrix(R, "R", (m, m))
    check_symmetric(R_, "R", definite=True)
    W_ = check_symmetric(check_matrix(W, "W", (n, n)), "W", definite=True)
    return A_, B_, Q_, R_, W_, check_number(gamma, "gamma")


def leqr_gains(
    A: ArrayLike,
    B: ArrayLike,
    Q: ArrayLike,
    R: ArrayLike,
    QT: ArrayLike,
    W: ArrayLike,
    T: int,
    gamma: float,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Optimal time-varying LEQR gains by the backward risk-sensitive Riccati recursion.

    Args:
        A: (n, n) state matrix. B: (n, m) input matrix.
        Q: (n, n) stage state cost (PSD). R: (m, m) control cost (PD). QT: (n, n) terminal cost (PSD).
        W: (n, n) process-noise covariance (PD). T: horizon (>= 1). gamma: risk parameter (any real;
            0 gives the risk-neutral finite-horizon LQR).

    Returns:
        K: (T, m, n) gains, u_t = K[t] x_t. P: (T + 1, n, n) value matrices with P[T] = QT.
        c: (T + 1,) constants; the optimal criterion is J*(x0) = x0ᵀ P[0] x0 + c[0].

    Raises:
        RiccatiBreakdown: if I - γ W^{1/2} P_{t+1} W^{1/2} is not positive definite at some t.
        ValueError: on malformed inputs.
    """
    A_, B_, Q_, R_, W_, g = _check_problem(A, B, Q, R, W, gamma)
    QT_ = check_matrix(QT, "QT", A_.shape)
    check_symmetric(QT_, "QT", definite=False)
    return leqr_gains_kernel(A_, B_, Q_, R_, QT_, psd_sqrt(W_), check_int(T, "T", low=1), g)


def _check_gains(K: ArrayLike, n: int, m: int) -> FloatArray:
    K_ = as_float_array(K, "K")
    if K_.ndim == 2:
        K_ = K_[None]
    if K_.ndim != 3 or K_.shape[1:] != (m, n) or K_.shape[0] < 1:
        raise ValueError(f"K must have shape (T, m, n) = (T, {m}, {n}), got {np.shape(K)}")
    if not np.all(np.isfinite(K_)):
        raise ValueError("K must have only finite entries")
    return K_


def _check_sigma(sigma: float) -> float:
    return float(check_positive(sigma, "sigma", strict=False))


def policy_value(
    A: ArrayLike,
    B: ArrayLike,
    Q: ArrayLike,
    R: ArrayLike,
    QT: ArrayLike,
    W: ArrayLike,
    K: ArrayLike,
    gamma: float,
    sigma: float = 0.0,
) -> tuple[FloatArray, float]:
    """Exact criterion of a linear policy as a quadratic form: J(x0) = x0ᵀ P0 x0 + c0.

    The policy is u_t = K[t] x_t + η_t with η_t ~ N(0, σ² I_m) i.i.d. (exploration noise). Evaluating
    (P0, c0) once makes the criterion of many initial states a quadratic form, which is how the
    learners compute exact per-episode regret.

    Args:
        A, B, Q, R, QT, W: system matrices as in ``leqr_gains``. K: (T, m, n) gains (horizon T is
            K.shape[0]). gamma: risk parameter. sigma: exploration-noise standard deviation (>= 0).

    Returns:
        P0: (n, n) and c0: float. On breakdown (some I - γ S^{1/2} M S^{1/2} not ≻ 0) or numerical
        overflow the criterion is +∞ for every x0: returns (zeros, +inf), never NaN.
    """
    A_, B_, Q_, R_, W_, g = _check_problem(A, B, Q, R, W, gamma)
    n, m = B_.shape
    QT_ = check_matrix(QT, "QT", (n, n))
    check_symmetric(QT_, "QT", definite=False)
    K_ = _check_gains(K, n, m)
    return policy_value_kernel(A_, B_, Q_, R_, QT_, psd_sqrt(W_), K_, g, _check_sigma(sigma))


def policy_cost(system: LEQRSystem, K: ArrayLike, x0: ArrayLike, sigma: float = 0.0) -> float | FloatArray:
    """Exact LEQR criterion J(K, σ; x0) of u_t = K_t x_t + η_t on ``system`` (γ = system.gamma).

    Args:
        system: the true system. K: (T, m, n) gains with T = system.T. x0: (n,) initial state or
            (batch, n) initial states. sigma: exploration-noise std (>= 0).

    Returns:
        float for a single x0, (batch,) array for a batch; +inf where the criterion diverges.
    """
    K_ = _check_gains(K, system.n, system.m)
    if K_.shape[0] != system.T:
        raise ValueError(f"K must cover the horizon T={system.T}, got {K_.shape[0]} gains")
    P0, c0 = policy_value_kernel(
        system.A,
        system.B,
        system.Q,
        system.R,
        system.QT,
        system.W_sqrt,
        K_,
        system.gamma,
        _check_sigma(sigma),
    )
    x = as_float_array(x0, "x0")
    if x.shape[-1:] != (system.n,) or x.ndim > 2:
        raise ValueError(f"x0 must have shape (n,) or (batch, n) with n={system.n}, got {x.shape}")
    if not np.isfinite(c0):
        return float("inf") if x.ndim == 1 else np.full(x.shape[0], np.inf)
    quad = np.einsum("...i,ij,...j->...", x, P0, x) + c0
    return float(quad) if x.ndim == 1 else np.asarray(quad, dtype=np.float64)


def is_well_posed(P: ArrayLike, W: ArrayLike, gamma: float) -> bool:
    """True iff I - γ W^{1/2} P W^{1/2} ≻ 0 (for every matrix when P is a (k, n, n) stack).

    For γ <= 0 and P ⪰ 0 this always holds. P: (n, n) or (k, n, n); W: (n, n) PD.
    """
    P_ = as_float_array(P, "P")
    if P_.ndim == 2:
        P_ = P_[None]
    if P_.ndim != 3 or P_.shape[1] != P_.shape[2]:
        raise ValueError(f"P must have shape (n, n) or (k, n, n), got {np.shape(P)}")
    n = P_.shape[1]
    Wh = psd_sqrt(check_symmetric(check_matrix(W, "W", (n, n)), "W", definite=True))
    if not np.all(np.isfinite(P_)):
        return False
    H = Wh @ P_ @ Wh
    lam = np.linalg.eigvalsh(0.5 * (H + np.swapaxes(H, -1, -2)))
    return bool(np.all(1.0 - float(gamma) * lam > 0.0))


def stationary_leqr(
    A: ArrayLike,
    B: ArrayLike,
    Q: ArrayLike,
    R: ArrayLike,
    W: ArrayLike,
    gamma: float,
    *,
    tol: float = 1e-13,
    max_iter: int = 100_000,
) -> FloatArray:
    """Stationary solution P_∞ of the risk-sensitive Riccati recursion by fixed-point iteration.

    Iterates P ← Q + KᵀRK + (A + BK)ᵀ P̃ (A + BK) from P = Q until the largest entrywise change is at
    most ``tol · max(1, max|P|)``. Using P_∞ as terminal cost makes the finite-horizon gains constant.

    Returns:
        P_inf: (n, n).

    Raises:
        RiccatiBreakdown: if the iteration reaches a non-well-posed P (γ too large).
        ValueError: if it does not converge within ``max_iter`` iterations (e.g. (A, B) not
            stabilisable).
    """
    A_, B_, Q_, R_, W_, g = _check_problem(A, B, Q, R, W, gamma)
    check_int(max_iter, "max_iter", low=1)
    check_positive(tol, "tol")
    Wh = psd_sqrt(W_)
    P = 0.5 * (Q_ + Q_.T)
    delta = float("inf")
    for it in range(max_iter):
        try:
            _, Pn, _ = _optimal_step(A_, B_, Q_, R_, Wh, P, g, -(it + 1))
        except RiccatiBreakdown as exc:
            raise RiccatiBreakdown(
                exc.t, exc.eigenvalue, g, where=f"fixed-point iteration {it + 1}"
            ) from None
        delta = float(np.max(np.abs(Pn - P)))
        P = Pn
        if delta <= tol * max(1.0, float(np.max(np.abs(P)))):
            return P
    raise ValueError(
        f"stationary risk-sensitive Riccati iteration did not converge within {max_iter} iterations "
        f"(last change {delta:.3g}); is (A, B) stabilisable and gamma={g:g} small enough?"
    )
