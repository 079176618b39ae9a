"""Adam (Kingma & Ba 2015) with PyTorch's update rule, on plain tensors.

    m <- b1 m + (1 - b1) g ;  v <- b2 v + (1 - b2) g^2
    theta <- theta - (lr / (1 - b1^t)) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)

exactly ``torch.optim.Adam``'s arithmetic (weight decay 0, no amsgrad; tested against it, ``slow``). Why not
``torch.optim.Adam``: its first use imports ``torch._dynamo``, which costs ~11 CPU-seconds per process where
bytecode is not cached (this repository's test machines), more than a whole smoke run of this package.
The state (``m``, ``v``, ``t``) is kept across tasks, as the continual-learning protocol needs.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import torch
from paperkit import check_number, check_positive

__all__ = ["Adam"]


class Adam:
    """``Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8)``; ``zero_grad()`` then ``step()``."""

    def __init__(
        self,
        params: Iterable[torch.Tensor],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
    ) -> None:
        self.params = list(params)
        self.lr = check_positive(lr, "lr")
        self.b1 = check_number(betas[0], "betas[0]", low=0.0, high=1.0, high_open=True)
        self.b2 = check_number(betas[1], "betas[1]", low=0.0, high=1.0, high_open=True)
        self.eps = check_positive(eps, "eps")
        self.m = [torch.zeros_like(p) for p in self.params]
        self.v = [torch.zeros_like(p) for p in self.params]
        self.t = 0

    def zero_grad(self) -> None:
        for p in self.params:
            p.grad = None

    @torch.no_grad()
    def step(self) -> None:
        self.t += 1
        c1 = 1 - self.b1**self.t
        c2_sqrt = math.sqrt(1 - self.b2**self.t)
        for p, m, v in zip(self.params, self.m, self.v, strict=True):
            if p.grad is None:
                continue
            g = p.grad
            m.lerp_(g, 1 - self.b1)  # b1 m + (1 - b1) g, as torch.optim.Adam computes it
            v.mul_(self.b2).addcmul_(g, g, value=1 - self.b2)
            denom = (v.sqrt() / c2_sqrt).add_(self.eps)
            p.addcdiv_(m, denom, value=-self.lr / c1)
