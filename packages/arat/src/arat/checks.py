"""Argument checks shared by the public entry points (paperkit.validation's message style).

Order matters: type, then device (a tensor on another device cannot be inspected here), then dtype and
shape, then emptiness, then finiteness and range, so each message names the first thing that is wrong.
"""

from __future__ import annotations

from typing import Any

import torch
from paperkit.validation import check_finite, check_instance, check_int
from torch import nn

__all__ = [
    "check_batch",
    "check_count",
    "check_features",
    "check_model",
    "check_model_data",
    "check_targets",
    "model_device",
    "model_dtype",
    "output_classes",
]


def check_model(model: Any, name: str = "model") -> nn.Module:
    """``model`` must be a ``torch.nn.Module``."""
    return check_instance(model, name, nn.Module)


def model_device(model: nn.Module) -> torch.device | None:
    """The device of ``model``'s first parameter or buffer (``None`` for a module without tensors)."""
    for t in (*model.parameters(), *model.buffers()):
        return t.device
    return None


def model_dtype(model: nn.Module) -> torch.dtype | None:
    """The dtype of ``model``'s first floating parameter (``None`` without one)."""
    for p in model.parameters():
        if p.is_floating_point():
            return p.dtype
    return None


def _same_device(t: torch.Tensor, model: nn.Module | None, name: str) -> None:
    dev = model_device(model) if model is not None else None
    if dev is not None and t.device != dev:
        raise ValueError(f"{name} is on {t.device} but the model is on {dev}; move one of them")


def check_batch(
    x: Any, name: str = "x", *, model: nn.Module | None = None, pixels: bool = True
) -> torch.Tensor:
    """A non-empty floating ``(batch, channels, h, w)`` tensor on ``model``'s device, finite, and with
    ``pixels`` in [0, 1]."""
    t = check_instance(x, name, torch.Tensor)
    _same_device(t, model, name)
    if t.ndim != 4 or not t.is_floating_point():
        raise ValueError(
            f"{name} must be a floating (batch, channels, height, width) tensor, "
            f"got {tuple(t.shape)} {t.dtype}"
        )
    if t.numel() == 0:
        raise ValueError(f"{name} must be a non-empty batch, got shape {tuple(t.shape)}")
    check_finite(t, name)
    dtype = model_dtype(model) if model is not None else None
    if dtype is not None and t.dtype != dtype:
        raise ValueError(f"{name} has dtype {t.dtype} but the model's parameters are {dtype}")
    if pixels and (float(t.min()) < 0.0 or float(t.max()) > 1.0):
        raise ValueError(
            f"{name} must hold pixels in [0, 1], got range [{float(t.min()):.3g}, {float(t.max()):.3g}]"
        )
    return t


def check_targets(y: Any, n: int, name: str = "y", *, classes: int | None = None) -> torch.Tensor:
    """An int64 vector of ``n`` labels, each in ``[0, classes)`` (``classes=None``: each >= 0)."""
    t = check_instance(y, name, torch.Tensor)
    if t.ndim != 1 or t.dtype != torch.int64 or len(t) != n:
        raise ValueError(
            f"{name} must be an int64 vector of {n} labels (one per input), got {tuple(t.shape)} {t.dtype}"
        )
    if n and (int(t.min()) < 0 or (classes is not None and int(t.max()) >= classes)):
        hi = "" if classes is None else f", {classes - 1}"
        raise ValueError(
            f"{name} must hold class labels in [0{hi}], got range [{int(t.min())}, {int(t.max())}]"
        )
    return t


def check_features(u: Any, name: str) -> torch.Tensor:
    """A finite floating ``(batch >= 1, d >= 1)`` tensor."""
    t = check_instance(u, name, torch.Tensor)
    if t.ndim != 2 or not t.is_floating_point() or t.numel() == 0:
        raise ValueError(
            f"{name} must be a non-empty floating (batch, d) tensor, got {tuple(t.shape)} {t.dtype}"
        )
    return check_finite(t, name)


def check_count(value: Any, name: str, low: int = 1) -> int:
    """An ``int`` (not a bool) ``>= low``."""
    return check_int(value, name, low=low)


@torch.no_grad()
def output_classes(model: nn.Module, x: torch.Tensor) -> int:
    """The number of classes ``model`` outputs, from an eval-mode forward of ``x[:1]`` (no statistics
    update; the mode is restored)."""
    was = model.training
    model.eval()
    try:
        return int(model(x[:1]).shape[-1])
    finally:
        model.train(was)


def check_model_data(
    model: Any, x: Any, y: Any, *, pixels: bool = True
) -> tuple[nn.Module, torch.Tensor, torch.Tensor]:
    """``model``, an image batch ``x`` on its device and int64 labels ``y`` in ``[0, classes)``."""
    m = check_model(model)
    xt = check_batch(x, model=m, pixels=pixels)
    yt = check_instance(y, "y", torch.Tensor)
    if yt.device != xt.device:
        raise ValueError(f"y is on {yt.device} but x is on {xt.device}")
    yt = check_targets(yt, len(xt), classes=output_classes(m, xt))
    return m, xt, yt
