"""The regularisers combined with the activations (the paper: "deep Fourier features combined with
regularization"; which one it uses was not accessible: L2 toward the initialisation is the spec's best
reading, the same authors' line of work uses it and spectral regularisation).

    l2(theta)       = lam * ||theta||^2
    l2_init(theta)  = lam * ||theta - theta_0||^2          (Kumar et al. 2023, "L2 Init")
    grad l2_init    = 2 lam (theta - theta_0)

Shrink-and-perturb (Ash & Adams 2020): theta <- alpha theta + sigma eps, eps ~ N(0, 1), at task boundaries.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from paperkit import check_choice, check_positive, check_probability, check_seed

from deep_fourier.checks import check_module, check_params

__all__ = ["REGULARIZERS", "l2", "l2_init", "penalty", "shrink_perturb"]

REGULARIZERS = ("none", "l2", "l2_init")


def l2(params: Sequence[torch.Tensor], lam: float) -> torch.Tensor:
    """``lam * sum ||p||^2`` (a 0-dim tensor on the parameters' device)."""
    lam = check_positive(lam, "lam", strict=False)
    params = check_params(params, "params")
    return lam * torch.stack([p.square().sum() for p in params]).sum()


def l2_init(params: Sequence[torch.Tensor], init: Sequence[torch.Tensor], lam: float) -> torch.Tensor:
    """``lam * sum ||p - p0||^2``; ``init`` are the detached initial parameters, in the same order."""
    lam = check_positive(lam, "lam", strict=False)
    params, init = check_params(params, "params"), check_params(init, "init")
    if len(params) != len(init):
        raise ValueError(f"init must hold one tensor per parameter ({len(params)}), got {len(init)}")
    for i, (p, p0) in enumerate(zip(params, init, strict=True)):
        if p.shape != p0.shape:
            raise ValueError(
                f"init[{i}] must have shape {tuple(p.shape)} (params[{i}]), got {tuple(p0.shape)}"
            )
    return lam * torch.stack([(p - p0).square().sum() for p, p0 in zip(params, init, strict=True)]).sum()


def penalty(
    kind: str, params: Sequence[torch.Tensor], init: Sequence[torch.Tensor], lam: float
) -> torch.Tensor | None:
    """The regulariser ``kind`` (one of :data:`REGULARIZERS`), or None for ``"none"`` (or ``lam = 0``)."""
    kind = check_choice(kind, "kind (reg)", REGULARIZERS)
    lam = check_positive(lam, "lam", strict=False)
    if kind == "none" or lam == 0:
        return None
    return l2(params, lam) if kind == "l2" else l2_init(params, init, lam)


@torch.no_grad()
def shrink_perturb(model: torch.nn.Module, *, alpha: float, sigma: float, seed: int) -> None:
    """In place: ``theta <- alpha theta + sigma eps`` with ``eps ~ N(0, 1)`` from ``seed``."""
    alpha = check_probability(alpha, "alpha")
    sigma = check_positive(sigma, "sigma", strict=False)
    params = list(check_module(model, need_params=True).parameters())
    gen = torch.Generator(device=params[0].device).manual_seed(check_seed(seed))
    for p in params:
        p.mul_(alpha).add_(sigma * torch.randn(p.shape, generator=gen, device=p.device, dtype=p.dtype))
