"""Sanity baseline (ours, not in the paper): truncated-SVD sign reconstruction of Ã = 2A − 1 at rank D.

The best rank-D approximation of Ã in Frobenius norm, thresholded at 0: an LPCA embedding with no training
(``X = U_D Σ_D``, ``Y = V_D``). It shows how much the trained models gain over linear algebra alone.
"""

from __future__ import annotations

import numpy as np

from lpca_metric_embed.graphs import to_graph
from lpca_metric_embed.recon import dense_mismatch


def svd_sign_mismatch(graph: object, dim: int) -> int:
    """Misclassified off-diagonal pairs of ``SVD_D(Ã) >= 0`` (diagonal of Ã set to 0). Dense, small N."""
    if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)) or dim < 1:
        raise ValueError(f"the embedding dimension D must be an integer >= 1, got {dim!r}")
    g = to_graph(graph)
    At = g.dense().astype(np.float64) * 2 - 1
    np.fill_diagonal(At, 0.0)
    U, s, Vt = np.linalg.svd(At)
    return dense_mismatch(U[:, :dim] * s[:dim], Vt[:dim].T, None, g).n_wrong
