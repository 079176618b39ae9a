"""Shared checks of paperkit.vision: devices, image batches and generators."""

from __future__ import annotations

import torch

from paperkit.runtime import DeviceError
from paperkit.validation import check_finite, check_instance, check_number

__all__ = ["as_device", "check_clip", "check_generator", "check_images", "check_labels", "check_model"]


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
    return check_finite(t, name)


def check_model(model: object, name: str = "model") -> torch.nn.Module:
    """``model`` must be a ``torch.nn.Module``."""
    return check_instance(model, name, torch.nn.Module)  # type: ignore[return-value]


def check_labels(y: torch.Tensor, n: int, name: str = "y") -> torch.Tensor:
    """``y`` must be an int64 vector of ``n >= 1`` labels."""
    t = check_instance(y, name, torch.Tensor)
    if t.ndim != 1 or t.dtype != torch.int64 or len(t) != n or n == 0:
        raise ValueError(
            f"{name} must be an int64 vector of len(x) = {n} >= 1 labels, got {tuple(t.shape)} {t.dtype}"
        )
    return t


def check_clip(clip: object, name: str = "clip") -> tuple[float, float] | None:
    """``None`` or a pair ``(low, high)`` of finite numbers with ``low < high``."""
    if clip is None:
        return None
    if not isinstance(clip, tuple | list) or len(clip) != 2:
        raise TypeError(f"{name} must be None or a pair (low, high), got {clip!r}")
    lo, hi = (check_number(c, f"{name}[{i}]") for i, c in enumerate(clip))
    if not lo < hi:
        raise ValueError(f"{name} must be (low, high) with low < high, got {clip}")
    return lo, hi


def check_generator(generator: torch.Generator, x: torch.Tensor, name: str = "generator") -> torch.Generator:
    """``generator`` must be a ``torch.Generator`` on ``x``'s device (randomness is always explicit)."""
    g = check_instance(generator, name, torch.Generator)
    if g.device.type != x.device.type:
        raise ValueError(f"{name} is on {g.device} but the images are on {x.device}")
    return g
