"""Exactness certificates: which off-diagonal pairs an embedding gets wrong.

A pair ``(i, j)``, ``i != j``, is predicted a link iff ``Λ_ij >= τ`` (inclusive, as in training). For the
L2 model that is ``‖x_i − y_j‖ <= β − τ``: a radius query. Two implementations:

- :func:`dense_mismatch`: every pair, in row chunks (O(N² D) time, O(chunk · N) memory); refused above
  ``DENSE_MAX_NODES`` with an error that names the sparse path. Works for LPCA and L2.
- :func:`kdtree_mismatch`: L2 only. Missed links are tested pair by pair (O(E D)); spurious links are the
  pairs a dual KD-tree radius search (``scipy.spatial.cKDTree.sparse_distance_matrix``) finds inside the
  ball that are not links: O(N log N + hits) for small D (paper §3.3).

Both decide every pair with the same float64 arithmetic (``_geometry.sq_dist_pairs`` compared with
``(β − τ)²``), so they agree exactly, also at ties ``‖x_i − y_j‖ = β − τ``. The KD-tree only proposes
candidates (at a radius inflated by 1e-9 relative); the decision is the exact comparison.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.spatial import cKDTree

from lpca_metric_embed._geometry import sq_dist_pairs
from lpca_metric_embed.graphs import DENSE_MAX_NODES, Graph, check_dense_size, to_graph


@dataclass(frozen=True, eq=False)
class Mismatch:
    """The misclassified off-diagonal pairs.

    Attributes:
        missed: (k, 2) int64 pairs that are links but predicted non-links, sorted by ``i * N + j``.
        spurious: (m, 2) int64 pairs predicted links that are not links, sorted likewise.
    """

    missed: np.ndarray
    spurious: np.ndarray

    @property
    def n_wrong(self) -> int:
        """Number of misclassified ordered pairs (0 iff the embedding is exact)."""
        return int(self.missed.shape[0] + self.spurious.shape[0])

    @property
    def exact(self) -> bool:
        return self.n_wrong == 0


def _pairs(keys: np.ndarray, n: int) -> np.ndarray:
    return np.stack([keys // n, keys % n], axis=1).astype(np.int64)


def _validate(X: np.ndarray, Y: np.ndarray, graph: Graph) -> tuple[np.ndarray, np.ndarray]:
    X = np.ascontiguousarray(X, dtype=np.float64)
    Y = np.ascontiguousarray(Y, dtype=np.float64)
    if X.ndim != 2 or X.shape != Y.shape or X.shape[0] != graph.n:
        raise ValueError(f"X and Y must both be (N={graph.n}, D), got {X.shape} and {Y.shape}")
    if not (np.all(np.isfinite(X)) and np.all(np.isfinite(Y))):
        raise ValueError("X and Y must be finite")
    return X, Y


def _radius(beta: float, tau: float) -> float:
    r = float(beta) - float(tau)
    if not np.isfinite(r):
        raise ValueError(f"β − τ must be finite, got β={beta}, τ={tau}")
    return r


def dense_mismatch(
    X: np.ndarray,
    Y: np.ndarray,
    beta: float | None,
    graph: object,
    tau: float = 0.0,
    *,
    max_nodes: int = DENSE_MAX_NODES,
    chunk_entries: int = 2**22,
) -> Mismatch:
    """Check every off-diagonal pair. ``beta=None`` means LPCA (``Λ = XYᵀ``), else L2.

    Args:
        X, Y: (N, D) embeddings (converted to float64); graph: anything :func:`to_graph` accepts.
        tau: threshold (0 for hinge/logistic, log ½ for Poisson).
        max_nodes: refuse (``ValueError`` naming :func:`kdtree_mismatch`) above this many nodes.
    """
    g = to_graph(graph)
    check_dense_size(g.n, max_nodes, "the dense O(N²) exactness check")
    X, Y = _validate(X, Y, g)
    n = g.n
    rows_per = max(1, chunk_entries // max(n, 1))
    missed, spurious = [], []
    for r0 in range(0, n, rows_per):
        r1 = min(n, r0 + rows_per)
        lo, hi = np.searchsorted(g.keys, [r0 * n, r1 * n])
        A = np.zeros((r1 - r0) * n, dtype=bool)
        A[g.keys[lo:hi] - r0 * n] = True
        if beta is None:
            pred = (X[r0:r1] @ Y.T >= tau).reshape(-1)
        else:
            rad = _radius(beta, tau)
            ii = np.repeat(np.arange(r0, r1, dtype=np.int64), n)
            jj = np.tile(np.arange(n, dtype=np.int64), r1 - r0)
            pred = (sq_dist_pairs(X, Y, ii, jj) <= rad * rad) if rad >= 0 else np.zeros(A.size, bool)
        diag = np.arange(r1 - r0) * n + np.arange(r0, r1)
        pred[diag] = False
        base = r0 * n
        missed.append(np.flatnonzero(A & ~pred) + base)
        spurious.append(np.flatnonzero(pred & ~A) + base)
    return Mismatch(_pairs(np.concatenate(missed), n), _pairs(np.concatenate(spurious), n))


def kdtree_mismatch(
    X: np.ndarray, Y: np.ndarray, beta: float, graph: object, tau: float = 0.0, *, leafsize: int = 16
) -> Mismatch:
    """The L2 exactness check by KD-tree radius search: O(N log N + hits + E) for small D.

    Args:
        X, Y: (N, D); beta: the L2 model's β (a negative ``β − τ`` predicts no links at all);
        graph: anything :func:`to_graph` accepts (a scipy sparse adjacency or :class:`Graph` for large N).
        tau: threshold; leafsize: of both cKDTrees.
    """
    if beta is None:
        raise ValueError("kdtree_mismatch is for the L2 model (a radius query); LPCA needs dense_mismatch")
    g = to_graph(graph)
    X, Y = _validate(X, Y, g)
    n = g.n
    rad = _radius(beta, tau)
    i, j = g.keys // n, g.keys % n
    if rad < 0:
        return Mismatch(_pairs(g.keys, n), np.zeros((0, 2), np.int64))
    r2 = rad * rad
    missed_keys = g.keys[sq_dist_pairs(X, Y, i, j) > r2]
    cand = cKDTree(X, leafsize=leafsize).sparse_distance_matrix(
        cKDTree(Y, leafsize=leafsize), max(rad * (1 + 1e-9), 1e-300), output_type="ndarray"
    )
    ci, cj = cand["i"].astype(np.int64), cand["j"].astype(np.int64)
    keep = ci != cj
    ci, cj = ci[keep], cj[keep]
    inside = sq_dist_pairs(X, Y, ci, cj) <= r2
    hit_keys = np.sort(ci[inside] * n + cj[inside])
    if g.keys.size:
        pos = np.minimum(np.searchsorted(g.keys, hit_keys), g.keys.size - 1)
        is_link = g.keys[pos] == hit_keys
    else:
        is_link = np.zeros(hit_keys.size, dtype=bool)
    return Mismatch(_pairs(missed_keys, n), _pairs(hit_keys[~is_link], n))


def mismatch(
    X: np.ndarray,
    Y: np.ndarray,
    beta: float | None,
    graph: object,
    tau: float = 0.0,
    *,
    dense_below: int = 3000,
) -> Mismatch:
    """Dense check for LPCA or for N <= ``dense_below``; the KD-tree check for larger L2 embeddings."""
    g = to_graph(graph)
    if beta is None or g.n <= dense_below:
        return dense_mismatch(X, Y, beta, g, tau)
    return kdtree_mismatch(X, Y, beta, g, tau)
