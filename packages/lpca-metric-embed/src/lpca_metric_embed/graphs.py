"""Graphs as sparse sets of ordered node pairs, and the synthetic graphs of the paper's appendix.

Everything downstream works on :class:`Graph`: ``n`` nodes labelled ``0..n-1`` and the sorted, unique
int64 keys ``i * n + j`` of its ordered links ``(i, j)``, ``i != j``. An undirected graph holds both
``(i, j)`` and ``(j, i)``, so the same code embeds directed and undirected graphs with separate
``X`` and ``Y`` (paper §2: asymmetric roles are kept even for undirected graphs).

Input rules (:func:`to_graph`), applied the same way to networkx graphs, scipy sparse matrices and
numpy arrays:

- node labels are relabelled ``0..n-1`` in the input's node order (``list(G)`` for networkx);
- self-loops are dropped (the diagonal is excluded from every loss and check, spec "Notation");
- duplicate edges (multigraphs, repeated sparse entries) collapse to one link;
- weights are binarised: a pair is a link iff its weight is non-zero; negative or non-finite
  weights are refused (a ``ValueError``), because their meaning as links is ambiguous;
- a graph with no nodes is refused; a graph with nodes and no links is valid.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp
from paperkit.validation import check_int
from scipy.spatial import cKDTree

from lpca_metric_embed._geometry import sq_dist_pairs

#: Above this many nodes nothing builds an N x N dense matrix (adjacency, logits or training batch);
#: 10^4 nodes is 10^8 entries (800 MB as float64 logits). Use :func:`lpca_metric_embed.kdtree_mismatch`.
DENSE_MAX_NODES = 10_000


@dataclass(frozen=True, eq=False)
class Graph:
    """A graph on ``n`` nodes as the sorted unique keys ``i * n + j`` of its ordered links.

    Attributes:
        n: number of nodes (>= 1).
        keys: (E,) int64, sorted, unique, no ``i == j``; E counts ordered pairs (2x the edges of an
            undirected graph).
        directed: whether the input was directed (informational; both cases are stored as ordered pairs).
        nodes: the original node labels, ``nodes[k]`` is node ``k`` (empty when the input had none).
    """

    n: int
    keys: np.ndarray
    directed: bool = False
    nodes: Sequence[Hashable] = field(default=())

    @property
    def n_links(self) -> int:
        """Number of ordered links (E)."""
        return int(self.keys.size)

    @property
    def edge_index(self) -> np.ndarray:
        """(2, E) int64: rows ``i`` and columns ``j`` of the links."""
        return np.stack([self.keys // self.n, self.keys % self.n])

    def csr(self) -> sp.csr_array:
        """The adjacency as a scipy CSR array (N, N) of bool; O(E) memory."""
        i, j = self.edge_index
        return sp.csr_array((np.ones(i.size, dtype=bool), (i, j)), shape=(self.n, self.n))

    def dense(self, max_nodes: int = DENSE_MAX_NODES) -> np.ndarray:
        """The adjacency as a dense (N, N) bool array; refused above ``max_nodes`` nodes."""
        check_dense_size(self.n, max_nodes, "a dense adjacency")
        out = np.zeros(self.n * self.n, dtype=bool)
        out[self.keys] = True
        return out.reshape(self.n, self.n)

    def permuted(self, perm: np.ndarray) -> Graph:
        """The same graph with node ``k`` renamed ``perm[k]``."""
        i, j = self.edge_index
        return _from_pairs(self.n, perm[i], perm[j], self.directed, ())


def check_dense_size(n: int, max_nodes: int, what: str) -> None:
    """Raise ``ValueError`` naming the sparse path when an N x N object would exceed ``max_nodes``."""
    if n > max_nodes:
        raise ValueError(
            f"refusing to build {what} for N = {n} nodes (> {max_nodes}, {n * n:.2e} entries): use the "
            "sparse path, lpca_metric_embed.kdtree_mismatch (cKDTree radius search) for the exactness "
            "check and lpca_metric_embed.fit_active_set / find_eed(..., trainer='active') for training"
        )


def _from_pairs(n: int, i: np.ndarray, j: np.ndarray, directed: bool, nodes: Sequence[Hashable]) -> Graph:
    i = np.asarray(i, dtype=np.int64)
    j = np.asarray(j, dtype=np.int64)
    keep = i != j
    i, j = i[keep], j[keep]
    keys = i * n + j if directed else np.concatenate([i * n + j, j * n + i])
    return Graph(n=n, keys=np.unique(keys), directed=directed, nodes=tuple(nodes))


def from_edge_index(n: int, edge_index: Any, *, directed: bool = False) -> Graph:
    """A graph from an (2, E) integer array of pairs; ``directed=False`` adds the reverse pairs."""
    n = check_int(n, "n (the number of nodes)", low=1)
    ei = np.asarray(edge_index)
    if ei.ndim != 2 or ei.shape[0] != 2:
        raise ValueError(f"edge_index must have shape (2, E), got {ei.shape}")
    if ei.size and (not np.issubdtype(ei.dtype, np.integer) or ei.min() < 0 or ei.max() >= n):
        raise ValueError(f"edge_index must hold integers in [0, {n}), got dtype {ei.dtype}")
    return _from_pairs(int(n), ei[0], ei[1], directed, ())


def _check_weights(w: np.ndarray) -> None:
    if w.size and (not np.all(np.isfinite(w)) or np.any(w < 0)):
        raise ValueError(
            "edge weights must be finite and non-negative (a pair is a link iff its weight is non-zero); "
            "got negative or non-finite weights"
        )


def to_graph(G: Any, *, directed: bool | None = None) -> Graph:
    """Convert a networkx graph, a scipy sparse adjacency, a dense numpy adjacency or a :class:`Graph`.

    Args:
        G: ``networkx.Graph``/``DiGraph``/multigraph (attribute ``weight`` is binarised, default 1), a
            square scipy sparse matrix/array, or a square numpy array (N <= DENSE_MAX_NODES).
        directed: for matrices, whether ``A[i, j]`` and ``A[j, i]`` are separate links. Default: the
            matrix is treated as directed unless it is symmetric. Ignored for networkx input (its own
            ``is_directed()`` decides).

    Returns:
        the :class:`Graph` (see the module docstring for the rules).
    """
    if isinstance(G, Graph):
        return G
    try:
        import networkx as nx
    except ImportError:  # pragma: no cover - networkx is a dependency
        nx = None
    if nx is not None and isinstance(G, nx.Graph):
        nodes = list(G.nodes)
        if not nodes:
            raise ValueError("empty graph: it has no nodes (an embedding needs N >= 1)")
        index = {v: k for k, v in enumerate(nodes)}
        e = list(G.edges(data="weight", default=1))
        w = np.array([x for _, _, x in e], dtype=float) if e else np.zeros(0)
        _check_weights(w)
        keep = w != 0
        i = np.array([index[u] for u, _, _ in e], dtype=np.int64)[keep] if e else np.zeros(0, np.int64)
        j = np.array([index[v] for _, v, _ in e], dtype=np.int64)[keep] if e else np.zeros(0, np.int64)
        return _from_pairs(len(nodes), i, j, G.is_directed(), nodes)
    if sp.issparse(G) or isinstance(G, np.ndarray):
        if G.ndim != 2 or G.shape[0] != G.shape[1]:
            raise ValueError(f"an adjacency matrix must be square (N, N), got shape {G.shape}")
        n = int(G.shape[0])
        if n == 0:
            raise ValueError("empty graph: the adjacency matrix is 0 x 0 (an embedding needs N >= 1)")
        if isinstance(G, np.ndarray):
            check_dense_size(n, DENSE_MAX_NODES, "from a dense numpy adjacency (pass a scipy sparse matrix)")
            if G.dtype == bool:
                G = G.astype(np.int8)
            if not np.issubdtype(G.dtype, np.number):
                raise TypeError(f"adjacency must be numeric or bool, got dtype {G.dtype}")
            coo = sp.coo_array(G)
        else:
            coo = sp.coo_array(G)
            coo.sum_duplicates()
        w = np.asarray(coo.data, dtype=float)
        _check_weights(w)
        keep = w != 0
        i, j = coo.row[keep].astype(np.int64), coo.col[keep].astype(np.int64)
        if directed is None:
            fwd = np.unique(i[i != j] * n + j[i != j])
            rev = np.unique(j[i != j] * n + i[i != j])
            directed = not np.array_equal(fwd, rev)
        return _from_pairs(n, i, j, directed, ())
    raise TypeError(
        "expected a networkx graph, a scipy sparse adjacency, a numpy array or a Graph, "
        f"got {type(G).__name__}"
    )


def block_cliques(n: int, b: int) -> Graph:
    """Disjoint cliques: ``b`` blocks of near-equal size on ``n`` nodes (the official ``create_1D_example``).

    Node ``k`` is in block ``k * b // n``; every pair within a block is linked.
    """
    if not (isinstance(n, int) and isinstance(b, int)) or b < 1 or n < b:
        raise ValueError(f"block_cliques needs integers 1 <= b <= n, got n={n!r}, b={b!r}")
    block = np.arange(n) * b // n
    i, j = np.nonzero(block[:, None] == block[None, :])
    return _from_pairs(n, i, j, False, ())


def rgg_radius(n: int, d: int, degree: float) -> float:
    """Radius giving an expected ``degree`` in a random geometric graph in [0, 1]^d (boundary ignored)."""
    unit_ball = math.pi ** (d / 2) / math.gamma(d / 2 + 1)
    return float((degree / ((n - 1) * unit_ball)) ** (1.0 / d))


def planted_rgg(
    n: int, d: int, r: float | None = None, seed: int = 0, *, degree: float = 10.0
) -> tuple[Graph, np.ndarray]:
    """Random geometric graph: ``n`` uniform points in [0, 1]^d, linked iff ``‖p_i − p_j‖₂ <= r``.

    The same rule as ``networkx.random_geometric_graph`` (inclusive), built with a KD-tree so that
    N = 10^6 fits in memory. The positions are a planted exact L2 embedding at D = d: ``X = Y = pos``,
    ``β = r``.

    Args:
        r: the radius; default :func:`rgg_radius` for the expected ``degree``.
        seed: seeds ``numpy.random.default_rng``.

    Returns:
        (graph, pos) with ``pos`` (n, d) float64.
    """
    if n < 1 or d < 1:
        raise ValueError(f"planted_rgg needs n >= 1 and d >= 1, got n={n}, d={d}")
    r = rgg_radius(n, d, degree) if r is None else float(r)
    if not r > 0:
        raise ValueError(f"radius must be positive, got {r}")
    pos = np.random.default_rng(seed).random((n, d))
    pairs = cKDTree(pos).query_pairs(r * (1 + 1e-9), output_type="ndarray")
    i, j = pairs[:, 0].astype(np.int64), pairs[:, 1].astype(np.int64)
    # Certify with the same arithmetic as the exactness checks (_geometry.sq_dist_pairs).
    keep = sq_dist_pairs(pos, pos, i, j) <= r * r
    return _from_pairs(n, i[keep], j[keep], False, ()), pos
