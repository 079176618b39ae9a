"""Projected gradient descent under an L-infinity budget (Madry et al., ICLR 2018).

    x_0     = clip(x + U(-eps, eps))                 (random start; x_0 = x without it)
    x_{t+1} = clip(x + P_eps(x_t + alpha * sign(grad_x CE(f(x_t), y)) - x))

with ``P_eps`` the element-wise clamp to ``[-eps, eps]`` and ``clip`` the clamp to the valid pixel range
(``None``: no range, e.g. standardised inputs). A targeted attack descends the loss of the target labels.
The model is run in ``eval()`` mode (BatchNorm uses running statistics) and its mode restored.
"""

from __future__ import annotations

import torch
from torch import nn

from paperkit.validation import (
    check_bool,
    check_finite,
    check_instance,
    check_int,
    check_number,
    check_positive,
    check_seed,
)
from paperkit.vision.common import check_labels, check_model

__all__ = ["pgd_linf"]


def pgd_linf(
    model: nn.Module,
    x: torch.Tensor,
    y: torch.Tensor,
    *,
    eps: float,
    alpha: float | None = None,
    steps: int = 10,
    random_start: bool = True,
    seed: int = 0,
    clip: tuple[float, float] | None = (0.0, 1.0),
    targeted: bool = False,
) -> torch.Tensor:
    """Adversarial examples ``x_adv`` with ``|x_adv - x|_inf <= eps`` (and inside ``clip``).

    Args:
        x: inputs of any shape ``(batch, ...)`` on the model's device; y: ``(batch,)`` int64 labels
            (the target labels when ``targeted``).
        eps: the L-infinity radius, in the units of ``x``; alpha: the step (default ``2.5 * eps / steps``).
        steps: number of signed-gradient steps; random_start: start uniformly inside the ball, drawn from
            ``torch.Generator(seed)``.
    """
    check_model(model)
    x = check_finite(check_instance(x, "x", torch.Tensor), "x")
    y = check_labels(y, len(x))
    eps = check_positive(eps, "eps", strict=False)
    steps = check_int(steps, "steps", low=0)
    alpha = 2.5 * eps / max(steps, 1) if alpha is None else check_positive(alpha, "alpha")
    random_start, targeted = check_bool(random_start, "random_start"), check_bool(targeted, "targeted")
    if clip is not None:
        lo, hi = (check_number(c, f"clip[{i}]") for i, c in enumerate(clip))
        if lo >= hi:
            raise ValueError(f"clip must be (low, high) with low < high, got {clip}")
    x0 = x.detach()

    def project(z: torch.Tensor) -> torch.Tensor:
        z = x0 + (z - x0).clamp(-eps, eps)
        return z if clip is None else z.clamp(lo, hi)

    adv = x0.clone()
    if random_start:
        gen = torch.Generator(device=x.device).manual_seed(check_seed(seed))
        u = torch.rand(x.shape, generator=gen, device=x.device, dtype=x.dtype)
        adv = project(adv + (2 * u - 1) * eps)
    sign = -1.0 if targeted else 1.0
    was_training = model.training
    model.eval()
    try:
        for _ in range(steps):
            adv.requires_grad_(True)
            loss = nn.functional.cross_entropy(model(adv), y)
            (grad,) = torch.autograd.grad(loss, adv)
            adv = project(adv.detach() + sign * alpha * grad.sign())
    finally:
        model.train(was_training)
    return adv.detach()
