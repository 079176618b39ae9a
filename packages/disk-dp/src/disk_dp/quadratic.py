"""The noisy quadratic: least squares with an ill-conditioned design, where DiSK's curvature term matters.

``F(w) = (1/2n) ||X w - y||^2`` with rows ``x_i ~ N(0, Sigma)``, ``Sigma`` diagonal with eigenvalues
log-spaced from 1 down to 1/cond, ``y = X w* + 0.5 noise``. The per-sample loss is ``(x_i^T w - y_i)^2 / 2``.
The excess loss ``F(w) - min F`` is exact (the minimiser by ``lstsq``).

**The filter algebra's prediction (ours).** For a quadratic and an unclipped per-sample gradient the
finite difference is exact, ``grad f(x + gamma d) - grad f(x) = gamma H d``, so DiSK-SGD's filtered gradient
is ``g_t = H x_t + e_t`` with ``e_t = (1 - kappa) e_{t-1} + kappa w_t`` (``x`` measured from the
minimiser, ``w_t`` the observation noise: DP noise plus Poisson sampling noise): the filter low-passes the
noise and adds no lag. In the eigenbasis of ``H`` (eigenvalue lam, noise variance s, ``a = 1 - lr lam``,
``b = 1 - kappa``) the stationary variance of ``x`` is ``lr^2 s / (1 - a^2)`` for DP-SGD and
``lr^2 s kappa^2 / (1 - b^2) (1 + a b) / ((1 - a^2)(1 - a b))`` for DiSK, so the excess loss
``sum lam Var / 2`` has the ratio :func:`predicted_excess` returns. The noise filter has gain 1 at zero
frequency, so directions with ``lr lam -> 0`` keep all their noise: the predicted reduction grows with lr.
The EMA ablation (c = 0) is a two-state linear system whose stationary covariance comes from a discrete
Lyapunov equation. The prediction ignores clipping and the state dependence of the sampling noise.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg
import torch
from paperkit.validation import check_number
from torch import nn


@dataclass(frozen=True)
class QuadraticProblem:
    """Attributes: x (n, d) float64, y (n,) float64, w_opt (d,) minimiser of F, f_opt = F(w_opt),
    hessian (d, d) = X^T X / n."""

    x: np.ndarray
    y: np.ndarray
    w_opt: np.ndarray
    f_opt: float
    hessian: np.ndarray

    def loss(self, w: np.ndarray) -> float:
        r = self.x @ w - self.y
        return float(0.5 * np.mean(r * r))

    def excess(self, w: np.ndarray) -> float:
        """F(w) - F(w_opt) = (w - w_opt)^T H (w - w_opt) / 2 (exact for least squares)."""
        e = w - self.w_opt
        return float(0.5 * e @ self.hessian @ e)


def noisy_quadratic_problem(
    n: int = 2000, d: int = 50, cond: float = 100.0, *, seed: int = 0, noise: float = 0.5
) -> QuadraticProblem:
    """Linear regression with a design of condition number ``cond`` (population Hessian eigenvalues
    1 .. 1/cond)."""
    if n < d or d < 1:
        raise ValueError(f"need n >= d >= 1, got n={n}, d={d}")
    check_number(cond, "cond", low=1)
    rng = np.random.default_rng(seed)
    scales = np.sqrt(np.logspace(0.0, -np.log10(cond), d))
    x = rng.standard_normal((n, d)) * scales
    w_star = rng.standard_normal(d) / np.sqrt(d) * 3.0
    y = x @ w_star + noise * rng.standard_normal(n)
    w_opt = np.linalg.lstsq(x, y, rcond=None)[0]
    prob = QuadraticProblem(x, y, w_opt, 0.0, x.T @ x / n)
    return QuadraticProblem(x, y, w_opt, prob.loss(w_opt), prob.hessian)


def squared_error(output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """``(output - target)^2 / 2`` summed: one example's least-squares loss."""
    return 0.5 * ((output.squeeze(-1) - target) ** 2).sum()


def linear_model(
    d: int, *, device: str | torch.device = "cpu", dtype: torch.dtype = torch.float64
) -> nn.Module:
    """``w -> x^T w`` without bias, initialised at w = 0."""
    m = nn.Linear(d, 1, bias=False).to(device=device, dtype=dtype)
    with torch.no_grad():
        m.weight.zero_()
    return m


def observation_noise(
    prob: QuadraticProblem, *, q: float, sigma: float, clip: float, batch: float
) -> np.ndarray:
    """Covariance (d, d) of the privatised gradient's noise at the minimiser: DP noise ``(sigma C / B)^2 I``
    plus Poisson sampling noise ``(1 - q) / (q n^2) sum_i g_i g_i^T`` (``g_i = x_i r_i``, unclipped)."""
    g = prob.x * (prob.x @ prob.w_opt - prob.y)[:, None]
    n = prob.x.shape[0]
    return (sigma * clip / batch) ** 2 * np.eye(prob.x.shape[1]) + (1 - q) / (q * n * n) * g.T @ g


def _ema_variance(lam: float, s: float, lr: float, kappa: float) -> float:
    """Stationary Var(x) of the EMA ablation: g_t = b g_{t-1} + kappa (lam x_t + w_t), x_{t+1} = x_t - lr g_t
    (state (x_t, g_{t-1}), a discrete Lyapunov equation)."""
    b = 1.0 - kappa
    a_mat = np.array([[1.0 - lr * kappa * lam, -lr * b], [kappa * lam, b]])
    b_vec = np.array([[-lr * kappa], [kappa]])
    return float(scipy.linalg.solve_discrete_lyapunov(a_mat, s * b_vec @ b_vec.T)[0, 0])


def predicted_excess(
    hessian: np.ndarray, noise_cov: np.ndarray, *, lr: float, kappa: float
) -> dict[str, float]:
    """Stationary expected excess loss of DP-SGD, DiSK-SGD and the EMA ablation (module docstring).

    Args:
        hessian: (d, d) symmetric positive definite H; noise_cov: (d, d) covariance of the noise on the
            averaged gradient; lr: step size with lr * lam_max < 2; kappa: the Kalman gain in (0, 1].

    Returns:
        ``{"DP-SGD": ..., "DiSK-SGD": ..., "DP-SGD+EMA": ..., "ratio": DiSK / DP-SGD}``.
    """
    lam, vecs = np.linalg.eigh(hessian)
    if not (lam.min() > 0 and lr * lam.max() < 2 and 0 < kappa <= 1):
        raise ValueError(f"need H > 0, lr * lam_max < 2 and kappa in (0, 1]; got lr {lr}, kappa {kappa}")
    s = np.einsum("ij,ik,kj->j", vecs, noise_cov, vecs)  # v_j^T S v_j
    a, b = 1.0 - lr * lam, 1.0 - kappa
    var_dp = lr**2 * s / (1 - a**2)
    var_disk = var_dp * kappa**2 / (1 - b**2) * (1 + a * b) / (1 - a * b)
    var_ema = np.array(
        [_ema_variance(float(l_), float(s_), lr, kappa) for l_, s_ in zip(lam, s, strict=True)]
    )
    out = {
        k: float(0.5 * (lam * v).sum())
        for k, v in (("DP-SGD", var_dp), ("DiSK-SGD", var_disk), ("DP-SGD+EMA", var_ema))
    }
    out["ratio"] = out["DiSK-SGD"] / out["DP-SGD"]
    return out


__all__ = [
    "QuadraticProblem",
    "linear_model",
    "noisy_quadratic_problem",
    "observation_noise",
    "predicted_excess",
    "squared_error",
]
