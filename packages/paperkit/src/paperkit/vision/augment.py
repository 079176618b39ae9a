"""Tensor-only training augmentations for image batches ``(batch, channels, height, width)``.

Every function is ``f(x, generator, **params) -> x'`` with an independent draw per image from the explicit
``torch.Generator`` (so ``functools.partial(random_shift, max_shift=1)`` is an ``augment`` for
:func:`paperkit.vision.train_epochs`), vectorised over the batch, on ``x``'s device:

- ``random_shift``: translate by integers ``(dy, dx)`` uniform in ``[-m, m]``, zero fill:
  ``x'[i, j] = x[i - dy, j - dx]``.
- ``random_crop``: zero-pad by ``p`` and crop the original size at a uniform offset (the CIFAR recipe);
  the same as a shift uniform in ``[-p, p]``.
- ``random_flip``: mirror left-right with probability ``p``.
- ``add_noise``: ``x + std * N(0, 1)``, optionally clamped.
- ``cutout``: zero a ``size x size`` square whose centre is uniform over the image (clipped at the
  borders; DeVries & Taylor 2017).
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from paperkit.validation import check_instance, check_int, check_positive, check_probability
from paperkit.vision.common import check_clip, check_generator, check_images

__all__ = ["add_noise", "compose", "cutout", "random_crop", "random_flip", "random_shift", "translate"]

Augment = Callable[[torch.Tensor, torch.Generator], torch.Tensor]


def _check_shift(v: torch.Tensor, n: int, name: str, x: torch.Tensor) -> torch.Tensor:
    """An integer ``(n,)`` shift vector on ``x``'s device."""
    t = check_instance(v, name, torch.Tensor)
    if t.shape != (n,) or t.dtype not in (torch.int64, torch.int32) or t.device != x.device:
        raise ValueError(
            f"{name} must be an int64 (batch,) = ({n},) tensor on {x.device}, got {tuple(t.shape)} {t.dtype}"
        )
    return t


def translate(x: torch.Tensor, dy: torch.Tensor, dx: torch.Tensor) -> torch.Tensor:
    """Shift image ``b`` by the integers ``(dy[b], dx[b])`` with zero fill:
    ``x'[b, :, i, j] = x[b, :, i - dy, j - dx]`` (``dy``, ``dx``: ``(batch,)`` int64 on ``x``'s device)."""
    x = check_images(x)
    b, _, h, w = x.shape
    dy, dx = _check_shift(dy, b, "dy", x), _check_shift(dx, b, "dx", x)
    m = int(max(dy.abs().max(), dx.abs().max())) if b else 0
    xp = torch.nn.functional.pad(x, (m, m, m, m))
    rows = torch.arange(h, device=x.device)[None, :] - dy[:, None] + m  # (b, h)
    cols = torch.arange(w, device=x.device)[None, :] - dx[:, None] + m  # (b, w)
    out = xp[torch.arange(b, device=x.device)[:, None, None], :, rows[:, :, None], cols[:, None, :]]
    return out.permute(0, 3, 1, 2).contiguous()  # advanced indexing puts channels last


def random_shift(x: torch.Tensor, generator: torch.Generator, *, max_shift: int = 1) -> torch.Tensor:
    x, g = check_images(x), check_generator(generator, x)
    m = check_int(max_shift, "max_shift", low=0)
    d = torch.randint(-m, m + 1, (2, len(x)), generator=g, device=x.device)
    return translate(x, d[0], d[1])


def random_crop(x: torch.Tensor, generator: torch.Generator, *, padding: int = 1) -> torch.Tensor:
    x, g = check_images(x), check_generator(generator, x)
    p = check_int(padding, "padding", low=0)
    offset = torch.randint(0, 2 * p + 1, (2, len(x)), generator=g, device=x.device)
    return translate(x, p - offset[0], p - offset[1])  # crop offset o shows x[i + o - p]


def random_flip(x: torch.Tensor, generator: torch.Generator, *, p: float = 0.5) -> torch.Tensor:
    x, g = check_images(x), check_generator(generator, x)
    p = check_probability(p, "p")
    flip = torch.rand(len(x), generator=g, device=x.device) < p
    return torch.where(flip[:, None, None, None], x.flip(-1), x)


def add_noise(
    x: torch.Tensor, generator: torch.Generator, *, std: float = 0.05, clip: tuple[float, float] | None = None
) -> torch.Tensor:
    x, g = check_images(x), check_generator(generator, x)
    std = check_positive(std, "std", strict=False)
    clip = check_clip(clip)
    out = x + std * torch.randn(x.shape, generator=g, device=x.device, dtype=x.dtype)
    return out if clip is None else out.clamp(*clip)


def cutout(x: torch.Tensor, generator: torch.Generator, *, size: int = 3) -> torch.Tensor:
    x, g = check_images(x), check_generator(generator, x)
    size = check_int(size, "size", low=0)
    b, _, h, w = x.shape
    cy = torch.randint(0, h, (b,), generator=g, device=x.device)
    cx = torch.randint(0, w, (b,), generator=g, device=x.device)
    lo_y, lo_x = cy - size // 2, cx - size // 2
    iy, ix = torch.arange(h, device=x.device), torch.arange(w, device=x.device)
    in_y = (iy[None] >= lo_y[:, None]) & (iy[None] < lo_y[:, None] + size)  # (b, h)
    in_x = (ix[None] >= lo_x[:, None]) & (ix[None] < lo_x[:, None] + size)  # (b, w)
    hole = in_y[:, :, None] & in_x[:, None, :]
    return x.masked_fill(hole[:, None], 0.0)


def compose(*augments: Augment) -> Augment:
    """One augmentation applying ``augments`` in order with the same generator."""
    for i, a in enumerate(augments):
        if not callable(a):
            raise TypeError(f"augments[{i}] must be callable, got {type(a).__name__}")

    def apply(x: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
        for a in augments:
            x = a(x, generator)
        return x

    return apply
