"""Argument checks the public entries share (tensors, devices, models, generators); each error names the
argument. Built on :mod:`paperkit.validation`."""

from __future__ import annotations

import torch
from paperkit import check_instance
from paperkit.validation import check_finite
from torch import nn

__all__ = ["check_device", "check_generator", "check_model", "check_same_device", "check_scores"]


def check_scores(
    f: object, name: str, *, ndim: int = 2, shape: tuple[int, ...] | None = None
) -> torch.Tensor:
    """``f`` as a finite floating tensor with ``ndim`` dimensions (and, given, exactly ``shape``)."""
    t: torch.Tensor = check_instance(f, name, torch.Tensor)  # type: ignore[assignment]
    if not t.is_floating_point():
        raise TypeError(f"{name} must be a floating tensor, got dtype {t.dtype}")
    if t.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-D tensor, got shape {tuple(t.shape)}")
    if shape is not None and tuple(t.shape) != tuple(shape):
        raise ValueError(f"{name} must have shape {tuple(shape)}, got {tuple(t.shape)}")
    return check_finite(t, name)


def check_same_device(a: torch.Tensor, a_name: str, b: torch.Tensor, b_name: str) -> None:
    if a.device != b.device:
        raise ValueError(f"{b_name} is on {b.device} but {a_name} is on {a.device}; put both on one device")


def check_device(device: object, name: str = "device") -> torch.device:
    """``device`` (a string such as ``"cpu"``/``"cuda:0"`` or a ``torch.device``) as a ``torch.device``."""
    check_instance(device, name, (str, torch.device))
    try:
        return torch.device(device)  # type: ignore[call-overload]
    except RuntimeError as e:
        raise ValueError(f"{name} must be a torch device such as 'cpu' or 'cuda', got {device!r}") from e


def check_model(model: object, name: str = "model") -> nn.Module:
    return check_instance(model, name, nn.Module)  # type: ignore[return-value]


def check_generator(gen: object, x: torch.Tensor, name: str = "gen") -> torch.Generator:
    g: torch.Generator = check_instance(gen, name, torch.Generator)  # type: ignore[assignment]
    if g.device.type != x.device.type:
        raise ValueError(f"{name} is on {g.device} but x is on {x.device}")
    return g
