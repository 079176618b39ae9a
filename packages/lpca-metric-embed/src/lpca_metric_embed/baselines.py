"""Sanity baseline (ours, not in the paper): truncated-SVD sign reconstruction of Ã = 2A − 1 at rank D.

The best rank-D approximation of Ã in Frobenius norm, thresholded at 0: an LPCA embedding with no training
(``X = U_D Σ_D``, ``Y = V_D``). It shows how much the trained models gain over linear algebra alone.
"""

from __future__ import annotations

import numpy as np
from paperkit.validation import check_int

from lpca_metric_embed.graphs import Graph, to_graph
from lpca_metric_embed.recon import dense_mismatch


def _check_dim(dim: object) -> int:
    return check_int(dim, "dim (the embedding dimension D)", low=1)


def _svd(g: Graph) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    At = g.dense().astype(np.float64) * 2 - 1
    np.fill_diagonal(At, 0.0)
    return np.linalg.svd(At)


def svd_sign_mismatch(graph: object, dim: int) -> int:
    """Misclassified off-diagonal pairs of ``SVD_D(Ã) >= 0`` (diagonal of Ã set to 0). Dense, small N."""
    dim = _check_dim(dim)
    g = to_graph(graph)
    U, s, Vt = _svd(g)
    return dense_mismatch(U[:, :dim] * s[:dim], Vt[:dim].T, None, g).n_wrong


def svd_sign_eed(graph: object, d_max: int) -> int | None:
    """The smallest D <= ``d_max`` with ``svd_sign_mismatch(graph, D) == 0`` (None if none): one SVD."""
    d_max = _check_dim(d_max)
    g = to_graph(graph)
    U, s, Vt = _svd(g)
    for D in range(1, min(d_max, g.n) + 1):
        if dense_mismatch(U[:, :D] * s[:D], Vt[:D].T, None, g).n_wrong == 0:
            return D
    return None
