"""Ranking agreement between implicit rewards and scores: Kendall's τ-b, vectorised over lists."""

from __future__ import annotations

import torch
from torch import Tensor


def kendall_tau(x: Tensor, y: Tensor, mask: Tensor | None = None) -> Tensor:
    """Kendall's τ-b between ``x`` and ``y`` along the last axis: (B, N) -> (B,) (or (N,) -> scalar).

    τ_b = Σ_{i<j} sgn(x_i − x_j) sgn(y_i − y_j) / sqrt(n_x n_y), n_x (n_y) the pairs not tied in x (y);
    the same statistic as ``scipy.stats.kendalltau`` (variant "b"). NaN where either side is all ties.
    Masked-out members (``mask`` False) are left out.
    """
    if x.shape != y.shape:
        raise ValueError(f"x {tuple(x.shape)} and y {tuple(y.shape)} differ in shape")
    squeeze = x.dim() == 1
    if squeeze:
        x, y = x[None], y[None]
        mask = None if mask is None else mask[None]
    m = torch.ones_like(x, dtype=torch.bool) if mask is None else mask.to(torch.bool)
    x, y = x.to(torch.float64), y.to(torch.float64)
    n = x.shape[-1]
    upper = torch.triu(torch.ones(n, n, dtype=torch.bool, device=x.device), diagonal=1)
    both = m[:, :, None] & m[:, None, :] & upper
    sx = torch.sign(x[:, :, None] - x[:, None, :]) * both
    sy = torch.sign(y[:, :, None] - y[:, None, :]) * both
    num = (sx * sy).sum((1, 2))
    den = torch.sqrt(sx.abs().sum((1, 2)) * sy.abs().sum((1, 2)))
    tau = torch.where(den > 0, num / torch.where(den > 0, den, 1.0), torch.nan)
    return tau[0] if squeeze else tau


def mean_kendall_tau(rewards: Tensor, scores: Tensor, mask: Tensor | None = None) -> float:
    """Mean τ-b over the lists where it is defined (NaN if it is defined for none)."""
    tau = kendall_tau(rewards, scores, mask)
    ok = torch.isfinite(tau)
    return float(tau[ok].mean()) if bool(ok.any()) else float("nan")
