"""Adam with coupled L2 weight decay: the update of ``torch.optim.Adam(weight_decay=wd)``, default betas.

Why not ``torch.optim.Adam``: constructing any ``torch.optim`` optimiser imports ``torch._dynamo``
(6-7 CPU-s per process on the shared 2-core machine, 2026-12-01), more than a whole smoke run. The update
(tested against ``torch.optim.Adam`` under ``--run-slow`` and against a NumPy transcription by default):

    g <- grad + wd p                    (coupled decay, as torch.optim.Adam and the official code)
    m <- b1 m + (1 - b1) g;  v <- b2 v + (1 - b2) g^2
    p <- p - lr (m / (1 - b1^t)) / (sqrt(v) / sqrt(1 - b2^t) + eps)
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import torch

__all__ = ["Adam"]


class Adam:
    """Adam over ``params`` with mutable ``lr`` and ``weight_decay`` (betas 0.9, 0.999; eps 1e-8)."""

    def __init__(
        self,
        params: Iterable[torch.Tensor],
        lr: float,
        weight_decay: float = 0.0,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
    ) -> None:
        self.params = list(params)
        self.lr, self.weight_decay = float(lr), float(weight_decay)
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
            g = p.grad if self.weight_decay == 0 else p.grad.add(p, alpha=self.weight_decay)
            m.lerp_(g, 1.0 - self.b1)
            v.mul_(self.b2).addcmul_(g, g, value=1.0 - self.b2)
            denom = (v.sqrt() / bc2_sqrt).add_(self.eps)
            p.addcdiv_(m, denom, value=-step_size)
