"""Argument checks shared by this package's public entry points (on top of ``paperkit.validation``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from paperkit import check_array, check_instance


def check_device(device: object, name: str = "device") -> torch.device:
    """A ``str`` or ``torch.device`` torch can parse (``"cpu"``, ``"cuda:0"``, ...); CUDA must be visible."""
    if isinstance(device, torch.device):
        device = str(device)
    if not isinstance(device, str):
        raise TypeError(f"{name} must be a str or torch.device, got {type(device).__name__}")
    try:
        out = torch.device(device)
    except RuntimeError as e:
        raise ValueError(f"{name} must name a torch device (cpu, cuda, cuda:N), got {device!r}") from e
    if out.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(
            f"{name} is {device!r} but no CUDA GPU is visible (torch.cuda.is_available() is False)"
        )
    return out


def check_tensor(
    x: object,
    name: str,
    *,
    ndim: int | None = None,
    shape: tuple[int | str | None, ...] | None = None,
    kind: str = "f",
    finite: bool = True,
) -> torch.Tensor:
    """A torch tensor (TypeError otherwise) of the given dtype kind, shape and finiteness."""
    check_instance(x, name, torch.Tensor)
    if ndim is not None and shape is None and x.ndim != ndim:  # type: ignore[attr-defined]
        raise ValueError(f"{name} must be a {ndim}-D tensor, got shape {tuple(x.shape)}")  # type: ignore[attr-defined]
    out: torch.Tensor = check_array(x, name, shape=shape, kind=kind, finite=finite)
    return out


def check_ndarray(x: object, name: str, *, ndim: int | None, kind: str, finite: bool = True) -> np.ndarray:
    """A numpy array (TypeError otherwise) with ``ndim`` dimensions (None: any) of the given dtype kind."""
    check_instance(x, name, np.ndarray)
    out: Any = check_array(x, name, ndim=ndim, kind=kind, finite=finite)
    return np.asarray(out)


def check_rng(rng: object, name: str = "rng") -> np.random.Generator:
    """A ``numpy.random.Generator``."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"{name} must be a numpy.random.Generator, got {type(rng).__name__}")
    return rng


def check_dtype(dtype: object, name: str = "dtype") -> torch.dtype:
    """A floating-point ``torch.dtype``."""
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise TypeError(f"{name} must be a floating torch.dtype, got {dtype!r}")
    return dtype
