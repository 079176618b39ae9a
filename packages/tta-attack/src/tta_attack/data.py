"""Digits-C: scikit-learn's digits at 16x16 as a clean source split and corrupted test streams.

The source model trains on the clean training part of a stratified split (``test_fraction`` held out);
the held-out part, corrupted by one of paperkit.vision's CIFAR-10-C recipes (Gaussian noise, Gaussian
blur, contrast; severity 1..5), is shuffled with the seed and cut into test batches of ``batch`` images
(the last incomplete batch is dropped, so every batch has the same composition).
"""

from __future__ import annotations

import torch
from paperkit.validation import check_choice, check_int, check_seed
from paperkit.vision import CORRUPTIONS, ImageSplit, corrupt, load_digits

__all__ = ["CORRUPTIONS", "corrupted_stream", "digits_split"]


def digits_split(
    *, seed: int = 0, test_fraction: float = 0.5, device: str | torch.device = "cpu"
) -> ImageSplit:
    """16x16 digits in [0, 1], ``(n, 1, 16, 16)``, split with ``seed``."""
    return load_digits(16, seed=check_seed(seed), test_fraction=test_fraction, device=device)


def corrupted_stream(
    x: torch.Tensor,
    y: torch.Tensor,
    corruption: str,
    *,
    severity: int = 3,
    batch: int = 100,
    n_batches: int | None = None,
    seed: int = 0,
) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """Batches ``[(x_b (batch, 1, s, s), y_b (batch,))]`` of the corrupted, shuffled test images.

    ``corruption`` is one of :data:`CORRUPTIONS` or ``"clean"``; the noise and the order are drawn from
    ``torch.Generator(seed)`` on the images' device.
    """
    corruption = check_choice(corruption, "corruption", ("clean", *CORRUPTIONS))
    batch, seed = check_int(batch, "batch", low=2), check_seed(seed)
    gen = torch.Generator(device=x.device).manual_seed(seed)
    xc = x if corruption == "clean" else corrupt(x, corruption, severity, generator=gen)
    order = torch.randperm(len(x), generator=gen, device=x.device)
    full = len(x) // batch
    if full == 0:
        raise ValueError(f"batch {batch} is larger than the {len(x)} test images")
    count = full if n_batches is None else min(full, check_int(n_batches, "n_batches", low=1))
    return [(xc[idx], y[idx]) for idx in order[: count * batch].split(batch)]
