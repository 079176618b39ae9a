"""Shared checks of paperkit.vision: devices, image batches and generators."""

from __future__ import annotations

import torch

from paperkit.runtime import DeviceError
from paperkit.validation import check_instance

__all__ = ["as_device", "check_generator", "check_images"]


def as_device(device: str | torch.device, name: str = "device") -> torch.device:
    """``device`` as a ``torch.device``; a malformed or absent one is a DeviceError naming ``name``."""
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError, ValueError) as err:
        raise DeviceError(f"unknown {name} {device!r}: expected e.g. 'cpu', 'cuda' or 'cuda:0'") from err
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise DeviceError(f"{name}={str(device)!r} was asked for but no CUDA GPU is visible; use 'cpu'")
    return dev


def check_images(x: torch.Tensor, name: str = "x") -> torch.Tensor:
    """``x`` must be a floating ``(batch, channels, height, width)`` tensor."""
    t = check_instance(x, name, torch.Tensor)
    if t.ndim != 4 or not t.is_floating_point():
        raise ValueError(
            f"{name} must be a floating (batch, channels, height, width) tensor, "
            f"got {tuple(t.shape)} {t.dtype}"
        )
    return t


def check_generator(generator: torch.Generator, x: torch.Tensor, name: str = "generator") -> torch.Generator:
    """``generator`` must be a ``torch.Generator`` on ``x``'s device (randomness is always explicit)."""
    g = check_instance(generator, name, torch.Generator)
    if g.device.type != x.device.type:
        raise ValueError(f"{name} is on {g.device} but the images are on {x.device}")
    return g
