"""Digits on noisy backgrounds (the issue's harder substrate; a candidate for ``paperkit.vision``).

Each image keeps its strokes and gets a fixed random background: ``x' = max(x, a u)``, ``u ~ U(0, 1)`` per
pixel, drawn once per image from ``seed`` (MNIST-background-random style). The noise is part of the data, not
an augmentation: every training seed and every method sees the same noisy images, so the comparisons stay
paired. ``a = 0`` returns ``x`` unchanged.
"""

from __future__ import annotations

import torch
from paperkit.validation import check_instance, check_number, check_seed

__all__ = ["noisy_background"]


def noisy_background(x: torch.Tensor, amplitude: float, *, seed: int) -> torch.Tensor:
    """``max(x, amplitude * U(0, 1))`` per pixel for images ``x (n, C, H, W)`` in [0, 1]."""
    check_instance(x, "x", torch.Tensor)
    if x.ndim != 4 or not x.is_floating_point():
        raise ValueError(f"x must be a float (n, C, H, W) batch, got {tuple(x.shape)} {x.dtype}")
    amplitude = check_number(amplitude, "amplitude", low=0.0, high=1.0)
    seed = check_seed(seed)
    if amplitude == 0.0:
        return x
    g = torch.Generator().manual_seed(seed)
    u = torch.rand(x.shape, generator=g, dtype=x.dtype).to(x.device)
    return torch.maximum(x, amplitude * u)
