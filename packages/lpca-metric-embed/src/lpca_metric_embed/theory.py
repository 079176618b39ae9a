"""The paper's two constructions between the models (Theorem: D*_LPCA − 2 <= D*_L2 <= D*_LPCA).

- :func:`lpca_to_l2`: unit-normalise every row; ``‖x̂ − ŷ‖² = 2 − 2 x̂ᵀŷ``, so β = √2 reproduces the sign
  of ``xᵀy`` in the same D.
- :func:`l2_to_lpca`: ``x' = [2x; β² − ‖x‖²; 1]``, ``y' = [y; 1; −‖y‖²]`` gives
  ``x'ᵀy' = β² − ‖x − y‖²`` in D + 2.

Both assume the threshold τ = 0 of the hinge/logistic losses.
"""

from __future__ import annotations

import math

import numpy as np


def lpca_to_l2(X: np.ndarray, Y: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """An L2 embedding (X̂, Ŷ, β = √2) in the same D with the same reconstruction as the LPCA ``(X, Y)``.

    Args:
        X, Y: (N, D) float. Rows must be non-zero (a zero row has ``xᵀy = 0`` for every y, which a
            unit vector cannot mimic).
    Returns:
        (X̂, Ŷ, √2) with unit-norm rows, float64.
    """
    X = np.asarray(X, dtype=np.float64)
    Y = np.asarray(Y, dtype=np.float64)
    nx_, ny_ = np.linalg.norm(X, axis=1), np.linalg.norm(Y, axis=1)
    if np.any(nx_ == 0) or np.any(ny_ == 0):
        raise ValueError("lpca_to_l2 needs non-zero rows in X and Y (a zero row cannot be normalised)")
    return X / nx_[:, None], Y / ny_[:, None], math.sqrt(2.0)


def l2_to_lpca(X: np.ndarray, Y: np.ndarray, beta: float) -> tuple[np.ndarray, np.ndarray]:
    """An LPCA embedding in D + 2 with ``x'ᵀy' = β² − ‖x − y‖²`` (same links as the L2 ``(X, Y, β)``).

    For β < 0 the L2 model predicts no link; then ``β²`` is replaced by −1 so that every score is < 0.

    Returns:
        (X', Y') of shape (N, D + 2), float64.
    """
    X = np.asarray(X, dtype=np.float64)
    Y = np.asarray(Y, dtype=np.float64)
    c = beta * beta if beta >= 0 else -1.0
    sx, sy = (X * X).sum(1), (Y * Y).sum(1)
    Xp = np.column_stack([2.0 * X, c - sx, np.ones(len(X))])
    Yp = np.column_stack([Y, np.ones(len(Y)), -sy])
    return Xp, Yp
