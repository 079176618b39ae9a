"""Small dense linear-algebra helpers shared by the modules (the package's internals; their names are public
to its modules). Argument checks go through :mod:`paperkit.validation`, so messages have one style."""

from __future__ import annotations

from typing import TypeAlias

import numpy as np
from numpy.typing import ArrayLike, NDArray
from paperkit.validation import check_matrix_pd

FloatArray: TypeAlias = NDArray[np.float64]


def as_float_array(value: ArrayLike, name: str) -> FloatArray:
    """Convert ``value`` to a float64 array, with a message naming the argument on failure."""
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a real numeric array, got {type(value).__name__}") from exc
    return arr


def check_matrix(value: ArrayLike, name: str, shape: tuple[int, int] | None = None) -> FloatArray:
    """Return ``value`` as a finite 2-D float64 array, optionally of a given shape."""
    arr = as_float_array(value, name)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-D matrix, got an array with shape {arr.shape}")
    if shape is not None and arr.shape != shape:
        raise ValueError(f"{name} must have shape {shape}, got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must have only finite entries (found NaN or inf)")
    return arr


def check_symmetric(arr: FloatArray, name: str, *, definite: bool) -> FloatArray:
    """Check that a square matrix is symmetric and PSD (or PD when ``definite``); return it symmetrised.

    Tolerances are relative to the matrix scale (``paperkit.check_matrix_pd``), so that matrices built by
    floating-point arithmetic (e.g. a Riccati solution used as terminal cost) are accepted.
    """
    checked = check_matrix_pd(arr, name, semi=not definite)
    return np.asarray(0.5 * (checked + checked.T), dtype=np.float64)


def psd_sqrt(S: FloatArray) -> FloatArray:
    """Symmetric square root of a symmetric PSD matrix (negative rounding-level eigenvalues clipped)."""
    lam, V = np.linalg.eigh(S)
    out: FloatArray = (V * np.sqrt(np.clip(lam, 0.0, None))) @ V.T
    return 0.5 * (out + out.T)


def psd_factor(S: FloatArray) -> FloatArray:
    """A factor L with L Lᵀ = S for symmetric PSD S (works for singular S, unlike Cholesky)."""
    lam, V = np.linalg.eigh(S)
    out: FloatArray = V * np.sqrt(np.clip(lam, 0.0, None))
    return out
