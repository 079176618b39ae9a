"""Argument checks shared by the public entries (thin wrappers over :mod:`paperkit.validation`)."""

from __future__ import annotations

import re

import numpy as np
from paperkit import check_instance

__all__ = ["check_device", "check_rng"]


def check_rng(rng: object, name: str = "rng") -> np.random.Generator:
    """``rng`` must be a ``numpy.random.Generator`` (a seed int is refused: pass ``default_rng(seed)``)."""
    check_instance(rng, name, np.random.Generator)
    assert isinstance(rng, np.random.Generator)  # for the type checker
    return rng


def check_device(device: object, name: str = "device") -> str:
    """A concrete torch device string: ``cpu``, ``cuda`` or ``cuda:N``."""
    check_instance(device, name, str)
    assert isinstance(device, str)
    if not re.fullmatch(r"cpu|cuda(:\d+)?", device):
        raise ValueError(f"{name} must be 'cpu', 'cuda' or 'cuda:N', got {device!r}")
    return device
