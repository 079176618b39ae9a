"""Episodic LEQR systems: a validated frozen container and the two systems of the experiments.

A system is x_{t+1} = A x_t + B u_t + w_t, w_t ~ N(0, W), t = 0..T-1, x_0 ~ N(0, x0_cov), with episode
cost C = Σ_{t<T} (x_tᵀ Q x_t + u_tᵀ R u_t) + x_Tᵀ QT x_T and risk-sensitive criterion
J = (2/γ) log E[exp(γ C / 2) | x_0] (see ``rslqr.riccati``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike
from paperkit.validation import check_int

from rslqr._linalg import FloatArray, check_matrix, check_symmetric, psd_factor, psd_sqrt
from rslqr.riccati import RiccatiBreakdown, leqr_gains_kernel, stationary_leqr

__all__ = ["LEQRSystem", "system_a", "system_b"]


def _readonly(arr: FloatArray) -> FloatArray:
    out = np.array(arr, dtype=np.float64, copy=True)
    out.flags.writeable = False
    return out


@dataclass(frozen=True, eq=False)
class LEQRSystem:
    """A finite-horizon linear exponential-of-quadratic regulator (validated at construction).

    Attributes:
        A: (n, n) state matrix. B: (n, m) input matrix.
        Q: (n, n) stage state cost, PSD. R: (m, m) control cost, PD. QT: (n, n) terminal cost, PSD.
        W: (n, n) process-noise covariance, PD. T: horizon (steps per episode, >= 1).
        gamma: risk parameter (> 0 risk-averse, < 0 risk-seeking, 0 risk-neutral).
        x0_cov: (n, n) covariance of the initial state x_0 ~ N(0, x0_cov), PSD.

    Array-like inputs are converted to read-only float64 arrays; symmetric matrices are symmetrised.
    Raises ValueError (naming the offending argument) on wrong shapes, non-finite entries, Q/QT/x0_cov
    not PSD, R/W not PD, T < 1, or a γ for which the true system's Riccati recursion breaks down;
    TypeError on a T that is not an integer.
    Equality is identity (arrays inside).
    """

    A: FloatArray
    B: FloatArray
    Q: FloatArray
    R: FloatArray
    QT: FloatArray
    W: FloatArray
    T: int
    gamma: float
    x0_cov: FloatArray
    W_sqrt: FloatArray = field(init=False, repr=False)
    x0_factor: FloatArray = field(init=False, repr=False)
    W_factor: FloatArray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        A = check_matrix(self.A, "A")
        if A.shape[0] != A.shape[1]:
            raise ValueError(f"A must be square (n, n), got shape {A.shape}")
        n = A.shape[0]
        if n < 1:
            raise ValueError("A must be at least 1x1")
        B = check_matrix(self.B, "B")
        if B.shape[0] != n or B.shape[1] < 1:
            raise ValueError(f"B must have shape (n, m) = ({n}, m) with m >= 1 to match A, got {B.shape}")
        m = B.shape[1]
        Q = check_symmetric(check_matrix(self.Q, "Q", (n, n)), "Q", definite=False)
        R = check_symmetric(check_matrix(self.R, "R", (m, m)), "R", definite=True)
        QT = check_symmetric(check_matrix(self.QT, "QT", (n, n)), "QT", definite=False)
        W = check_symmetric(check_matrix(self.W, "W", (n, n)), "W", definite=True)
        x0_cov = check_symmetric(check_matrix(self.x0_cov, "x0_cov", (n, n)), "x0_cov", definite=False)
        check_int(self.T, "T (the horizon)", low=1)
        try:
            gamma = float(self.gamma)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"gamma must be a real number, got {self.gamma!r}") from exc
        if not np.isfinite(gamma):
            raise ValueError(f"gamma must be finite, got {self.gamma}")
        set_ = object.__setattr__  # frozen dataclass: normalise fields once, here
        for name, value in (("A", A), ("B", B), ("Q", Q), ("R", R), ("QT", QT), ("W", W), ("x0_cov", x0_cov)):
            set_(self, name, _readonly(value))
        set_(self, "T", int(self.T))
        set_(self, "gamma", gamma)
        set_(self, "W_sqrt", _readonly(psd_sqrt(W)))
        set_(self, "W_factor", _readonly(psd_factor(W)))
        set_(self, "x0_factor", _readonly(psd_factor(x0_cov)))
        try:
            leqr_gains_kernel(A, B, Q, R, QT, self.W_sqrt, self.T, gamma)
        except RiccatiBreakdown as exc:
            raise ValueError(
                f"gamma={gamma:g} is too large for this system: {exc}. Choose a smaller gamma or horizon."
            ) from exc

    @property
    def n(self) -> int:
        """State dimension."""
        return int(self.A.shape[0])

    @property
    def m(self) -> int:
        """Control dimension."""
        return int(self.B.shape[1])

    @property
    def theta(self) -> FloatArray:
        """θ = [A B], shape (n, n + m): the unknown parameter, x_{t+1} = θ (x_t; u_t) + w_t."""
        return np.hstack([self.A, self.B])

    def optimal_gains(self) -> tuple[FloatArray, FloatArray, FloatArray]:
        """(K (T, m, n), P (T + 1, n, n), c (T + 1,)) of the optimal LEQR controller of this system."""
        return leqr_gains_kernel(self.A, self.B, self.Q, self.R, self.QT, self.W_sqrt, self.T, self.gamma)

    def simulate(
        self,
        K: ArrayLike,
        x0: ArrayLike,
        sigma: float,
        rng: np.random.Generator,
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        """Vectorised rollouts of u_t = K_t x_t + η_t, η_t ~ N(0, σ² I) (Monte Carlo checks, plots).

        Args:
            K: (T, m, n) gains. x0: (batch, n) initial states. sigma: exploration std (>= 0).
            rng: the only source of randomness (noise w_t, then η_t, drawn per step).

        Returns:
            X: (batch, T + 1, n) states, U: (batch, T, m) controls, C: (batch,) episode costs.
        """
        K_ = np.asarray(K, dtype=np.float64)
        if K_.shape != (self.T, self.m, self.n):
            raise ValueError(f"K must have shape (T, m, n) = {(self.T, self.m, self.n)}, got {K_.shape}")
        x = np.array(x0, dtype=np.float64, ndmin=2)
        if x.ndim != 2 or x.shape[1] != self.n:
            raise ValueError(f"x0 must have shape (batch, n) with n={self.n}, got {np.shape(x0)}")
        if not (np.isfinite(sigma) and sigma >= 0.0):
            raise ValueError(f"sigma must be finite and >= 0, got {sigma}")
        batch = x.shape[0]
        X = np.empty((batch, self.T + 1, self.n))
        U = np.empty((batch, self.T, self.m))
        C = np.zeros(batch)
        X[:, 0] = x
        for t in range(self.T):
            w = rng.standard_normal((batch, self.n)) @ self.W_factor.T
            u = x @ K_[t].T
            if sigma > 0.0:
                u = u + sigma * rng.standard_normal((batch, self.m))
            C += np.einsum("bi,ij,bj->b", x, self.Q, x) + np.einsum("bi,ij,bj->b", u, self.R, u)
            x = x @ self.A.T + u @ self.B.T + w
            X[:, t + 1] = x
            U[:, t] = u
        C += np.einsum("bi,ij,bj->b", x, self.QT, x)
        return X, U, C


# Spec "System A" (ours, not from the paper, whose matrices were not available): marginally stable
# A, single input acting on the second state; identity costs, W = 0.05 I, x_0 ~ N(0, I).
_A = ((1.0, 0.2), (0.0, 0.9))
_B = ((0.0,), (0.3,))
_W_SCALE = 0.05


def system_a(gamma: float = 0.2, T: int = 10) -> LEQRSystem:
    """Spec System A (identifiable): n = 2, m = 1, Q = R = QT = I, W = 0.05 I, x_0 ~ N(0, I).

    Its optimal gains vary strongly over t, so greedy (noise-free) data identify θ (Assumption 1).
    """
    eye = np.eye(2)
    return LEQRSystem(
        A=np.array(_A),
        B=np.array(_B),
        Q=eye,
        R=np.eye(1),
        QT=eye,
        W=_W_SCALE * eye,
        T=T,
        gamma=gamma,
        x0_cov=eye,
    )


def system_b(gamma: float = 0.2, T: int = 10) -> LEQRSystem:
    """Spec System B (not identifiable by greedy play): System A with QT = P_∞(γ).

    P_∞ is the stationary risk-sensitive Riccati solution, so P_t = P_∞ and K_t = K_∞ for all t and
    greedy data z_t = (x_t; K_∞ x_t) span only an n-dimensional subspace of R^{n+m}.
    """
    eye = np.eye(2)
    A, B, W = np.array(_A), np.array(_B), _W_SCALE * eye
    try:
        P_inf = stationary_leqr(A, B, eye, np.eye(1), W, gamma)
    except RiccatiBreakdown as exc:
        raise ValueError(
            f"gamma={gamma:g} is too large for System B: the stationary risk-sensitive Riccati "
            f"equation has no solution ({exc})"
        ) from exc
    return LEQRSystem(A=A, B=B, Q=eye, R=np.eye(1), QT=P_inf, W=W, T=T, gamma=gamma, x0_cov=eye)
