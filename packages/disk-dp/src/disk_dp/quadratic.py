"""The noisy quadratic: least squares with an ill-conditioned design, where DiSK's curvature term matters.

``F(w) = (1/2n) ||X w - y||^2`` with rows ``x_i ~ N(0, Sigma)``, ``Sigma`` diagonal with eigenvalues
log-spaced from 1 down to 1/cond, ``y = X w* + 0.5 noise``. The per-sample loss is ``(x_i^T w - y_i)^2 / 2``.
The excess loss ``F(w) - min F`` is exact (the minimiser by ``lstsq``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
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
    if not cond >= 1.0:
        raise ValueError(f"cond must be >= 1, got {cond!r}")
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


__all__ = ["QuadraticProblem", "linear_model", "noisy_quadratic_problem", "squared_error"]
