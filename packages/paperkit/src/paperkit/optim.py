"""Adam (Kingma & Ba, 2015) with ``torch.optim.Adam``'s arithmetic, and a plateau scheduler, on plain tensors.

    g <- grad + wd p                                   (coupled L2 decay, torch.optim.Adam's weight_decay)
    m <- b1 m + (1 - b1) g ;  v <- b2 v + (1 - b2) g^2
    p <- p - (lr / (1 - b1^t)) m / (sqrt(v) / sqrt(1 - b2^t) + eps)

The operations and their order are those of ``torch.optim.Adam`` (single-tensor path, no amsgrad), so the
parameters agree bit for bit (tests/test_optim.py, ``slow``). Why not ``torch.optim.Adam``: constructing any
``torch.optim.Optimizer`` imports ``torch._dynamo`` (about 2 CPU-s with cached bytecode, 10-18 s without, on
this repository's test machines), more than a whole smoke run of most packages. ``lr`` and ``weight_decay``
are plain attributes a schedule may change between steps; the state (``t``, ``m``, ``v``) persists, as
continual-learning protocols need. Needs torch (any package that trains a torch model has it).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import torch

from paperkit.validation import check_instance, check_int, check_number, check_positive

__all__ = ["Adam", "ReduceOnPlateau"]


class Adam:
    """``Adam(params, lr, weight_decay=0.0, betas=(0.9, 0.999), eps=1e-8)``; ``zero_grad()`` then ``step()``.

    params: tensors with ``requires_grad`` (updated in place); a parameter whose ``grad`` is None is skipped,
    as torch does.
    """

    def __init__(
        self,
        params: Iterable[torch.Tensor],
        lr: float = 1e-3,
        weight_decay: float = 0.0,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
    ) -> None:
        self.params = list(params)
        for i, p in enumerate(self.params):
            check_instance(p, f"params[{i}]", torch.Tensor)
        self.lr = float(check_positive(lr, "lr"))
        self.weight_decay = float(check_positive(weight_decay, "weight_decay", strict=False))
        check_instance(betas, "betas", tuple)
        if len(betas) != 2:
            raise ValueError(f"betas must be a pair (b1, b2), got {betas!r}")
        self.b1 = check_number(betas[0], "betas[0]", low=0.0, high=1.0, high_open=True)
        self.b2 = check_number(betas[1], "betas[1]", low=0.0, high=1.0, high_open=True)
        self.eps = check_positive(eps, "eps")
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
            m.lerp_(g, 1.0 - self.b1)  # b1 m + (1 - b1) g, the way torch.optim.Adam computes it
            v.mul_(self.b2).addcmul_(g, g, value=1.0 - self.b2)
            denom = (v.sqrt() / bc2_sqrt).add_(self.eps)
            p.addcdiv_(m, denom, value=-step_size)


class ReduceOnPlateau:
    """``torch.optim.lr_scheduler.ReduceLROnPlateau`` in mode min with a relative threshold, cooldown 0.

    ``step(value)`` after each evaluation: when ``value`` has not improved on the best by the relative
    ``threshold`` for more than ``patience`` calls, ``opt.lr`` is multiplied by ``factor``.
    """

    def __init__(self, opt: Adam, factor: float = 0.5, patience: int = 15, threshold: float = 1e-4) -> None:
        self.opt = check_instance(opt, "opt", Adam)
        self.factor = check_number(factor, "factor", low=0.0, high=1.0, low_open=True, high_open=True)
        self.patience = check_int(patience, "patience", low=0)
        self.threshold = check_positive(threshold, "threshold", strict=False)
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
