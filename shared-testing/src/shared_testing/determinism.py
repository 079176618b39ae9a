"""Exact comparison of nested results, for "same seed, same numbers" tests."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np


def _plain(x: Any) -> Any:
    if hasattr(x, "detach") and hasattr(x, "cpu"):  # a torch tensor, without importing torch
        return x.detach().cpu().numpy()
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return {f.name: getattr(x, f.name) for f in dataclasses.fields(x)}
    return x


def assert_identical(a: Any, b: Any, path: str = "result") -> None:
    """Assert two nested results (dicts, sequences, dataclasses, arrays, tensors, scalars) are bit-identical.

    NaNs compare equal to NaNs in the same places; anything else must match exactly.
    """
    a, b = _plain(a), _plain(b)
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        if set(a) != set(b):
            raise AssertionError(f"{path}: keys differ: {sorted(map(str, set(a) ^ set(b)))}")
        for k in a:
            assert_identical(a[k], b[k], f"{path}[{k!r}]")
        return
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        if len(a) != len(b):
            raise AssertionError(f"{path}: lengths differ: {len(a)} != {len(b)}")
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_identical(x, y, f"{path}[{i}]")
        return
    if isinstance(a, (np.ndarray, np.generic)) or isinstance(b, (np.ndarray, np.generic)):
        xa, xb = np.asarray(a), np.asarray(b)
        if xa.shape != xb.shape or not np.array_equal(xa, xb, equal_nan=xa.dtype.kind in "fc"):
            raise AssertionError(f"{path}: arrays differ (shapes {xa.shape} vs {xb.shape})")
        return
    if isinstance(a, float) and isinstance(b, float) and a != a and b != b:
        return
    if a != b:
        raise AssertionError(f"{path}: {a!r} != {b!r}")


def run_twice(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Call ``fn`` twice with the same arguments, assert the results are identical, return the first."""
    first = fn(*args, **kwargs)
    assert_identical(first, fn(*args, **kwargs))
    return first
