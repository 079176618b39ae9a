"""One arithmetic for squared distances, shared by every exactness check so that ties decide alike."""

from __future__ import annotations

import numpy as np


def sq_dist_pairs(X: np.ndarray, Y: np.ndarray, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Squared Euclidean distances ``‖X[i_k] − Y[j_k]‖²`` for k = 0..K-1, float64.

    The sum runs over the columns in a fixed order (column 0 first), vectorised over pairs, so the same
    pair always gets the same bits whichever check (dense, KD-tree, planted graph) asks.

    Args:
        X: (N, D) float64; Y: (M, D) float64; i, j: (K,) int64 indices.
    Returns:
        (K,) float64.
    """
    out = np.zeros(i.shape[0], dtype=np.float64)
    for c in range(X.shape[1]):
        diff = X[i, c] - Y[j, c]
        out += diff * diff
    return out
