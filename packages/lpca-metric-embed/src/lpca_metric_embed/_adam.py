"""A minimal Adam (Kingma & Ba, 2015), bit-for-bit the update of ``torch.optim.Adam`` with default betas.

Why not ``torch.optim.Adam``: constructing any ``torch.optim`` optimiser imports ``torch._dynamo``, which
took 12-18 s per process on the shared 2-core build machine (measured 2026-11-29), longer than our whole
quick search. The update below is the same (tested against ``torch.optim.Adam`` in tests/test_training.py):

    m ← β₁ m + (1 − β₁) g;  v ← β₂ v + (1 − β₂) g²
    p ← p − lr · (m / (1 − β₁ᵗ)) / (sqrt(v) / sqrt(1 − β₂ᵗ) + ε)
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import torch


class Adam:
    """Adam over ``params`` with a mutable learning rate ``lr`` (betas 0.9, 0.999; eps 1e-8)."""

    def __init__(
        self,
        params: Iterable[torch.Tensor],
        lr: float,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
    ) -> None:
        self.params = list(params)
        self.lr = float(lr)
        self.b1, self.b2 = betas
        self.eps = eps
        self.t = 0
        self.m = [torch.zeros_like(p) for p in self.params]
        self.v = [torch.zeros_like(p) for p in self.params]

    def zero_grad(self) -> None:
        for p in self.params:
            p.grad = None

    @torch.no_grad()
    def step(self) -> None:
        self.t += 1
        bc1 = 1.0 - self.b1**self.t
        bc2_sqrt = math.sqrt(1.0 - self.b2**self.t)
        step_size = self.lr / bc1
        for p, m, v in zip(self.params, self.m, self.v, strict=True):
            if p.grad is None:
                continue
            g = p.grad
            m.lerp_(g, 1.0 - self.b1)
            v.mul_(self.b2).addcmul_(g, g, value=1.0 - self.b2)
            denom = (v.sqrt() / bc2_sqrt).add_(self.eps)
            p.addcdiv_(m, denom, value=-step_size)


class ReduceOnPlateau:
    """``torch.optim.lr_scheduler.ReduceLROnPlateau`` (mode min, threshold 1e-4 relative, cooldown 0)."""

    def __init__(self, opt: Adam, factor: float = 0.5, patience: int = 15, threshold: float = 1e-4) -> None:
        self.opt, self.factor, self.patience, self.threshold = opt, factor, patience, threshold
        self.best = math.inf
        self.bad = 0

    def step(self, value: float) -> None:
        if value < self.best * (1.0 - self.threshold):
            self.best, self.bad = value, 0
        else:
            self.bad += 1
        if self.bad > self.patience:
            self.opt.lr *= self.factor
            self.bad = 0
