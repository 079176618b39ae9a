"""Upper bounds for "Problem 1": P1_G(k) = max_{|T| = k} 1_Tᵀ G 1_T for a symmetric Gram matrix G (n, n).

- :func:`triangle_bound`: the refined triangle inequality (official code
  ``geometric_algorithms/triangle_inequality.py``): c_i(k) = G_ii + (sum of the k − 1 largest entries of
  row i off the diagonal), P1(k) ≤ sum of the k largest c_i(k). Sound for any symmetric G: for |T| = k,
  1_TᵀG1_T = Σ_{i∈T} (G_ii + Σ_{j∈T, j≠i} G_ij) ≤ Σ_{i∈T} c_i(k).
- :func:`triangle_bound_blocked`: the same numbers computed from row blocks of G, never holding G:
  memory O(n·k_max + block·n) instead of O(n²).
- :func:`spectral_bound`: the eigenvalue bound of ``spectral_algorithms.py`` (optional, O(n³)).
- :func:`brute_force_p1`: the exact maximum by enumeration (tiny n; for tests).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np
from paperkit.validation import check_int

RowBlock = Callable[[int, int], np.ndarray]


def _check_k_max(k_max: int | None, n: int) -> int:
    return n - 1 if k_max is None else check_int(k_max, "k_max", low=1, high=n)


def _row_prefix(block: np.ndarray, start: int, k_max: int) -> np.ndarray:
    """c_i(k) for k = 1..k_max of the rows ``start..start+B`` of G given as ``block`` (B, n).

    ``block`` is overwritten."""
    B, n = block.shape
    rows = np.arange(B)
    diag = block[rows, start + rows].copy()
    out = np.empty((B, k_max))
    out[:, 0] = diag
    m = k_max - 1  # off-diagonal entries a row contributes at k = k_max
    if m > 0:
        block[rows, start + rows] = -np.inf  # exclude j = i
        top = np.partition(block, n - m, axis=1)[:, n - m :] if m < n else block
        top = -np.sort(-top, axis=1)[:, :m]
        np.cumsum(top, axis=1, out=top)
        out[:, 1:] = diag[:, None] + top
    return out


def _top_k_column_sums(C: np.ndarray, chunk: int = 256) -> np.ndarray:
    """For C (n, K): result[k−1] = sum of the k largest entries of column k−1, k = 1..K."""
    n, K = C.shape
    res = np.empty(K)
    for a in range(0, K, chunk):
        b = min(K, a + chunk)
        sub = C[:, a:b]
        top = np.partition(sub, n - b, axis=0)[n - b :] if b < n else sub.copy()
        top = -np.sort(-top, axis=0)  # (b or n, b − a), descending
        cs = np.cumsum(top, axis=0)
        cols = np.arange(a, b)
        res[a:b] = cs[cols, cols - a]
    return res


def triangle_bound(G: np.ndarray, k_max: int | None = None) -> np.ndarray:
    """Refined-triangle upper bounds on P1_G(k), k = 1..k_max (default n − 1).

    Args:
        G: (n, n) symmetric matrix (not modified).
    Returns:
        (k_max,) array; entry k − 1 bounds max_{|T|=k} 1_TᵀG1_T (not its square root).
    """
    G = np.asarray(G, dtype=np.float64)
    if G.ndim != 2 or G.shape[0] != G.shape[1]:
        raise ValueError(f"G must be square, got shape {G.shape}")
    n = G.shape[0]
    k = _check_k_max(k_max, n)
    return _top_k_column_sums(_row_prefix(G.copy(), 0, k))


def triangle_bound_blocked(rows: RowBlock, n: int, k_max: int, block: int = 512) -> np.ndarray:
    """:func:`triangle_bound` of the implicit symmetric G whose rows ``rows(a, b)`` returns as (b − a, n).

    Peak memory ≈ 8·(n·k_max + 3·block·n) bytes; G (8·n² bytes) is never formed.
    """
    k = _check_k_max(k_max, n)
    C = np.empty((n, k))
    for a in range(0, n, block):
        b = min(n, a + block)
        C[a:b] = _row_prefix(np.array(rows(a, b), dtype=np.float64), a, k)
    return _top_k_column_sums(C)


def spectral_bound(G: np.ndarray, k_max: int | None = None) -> np.ndarray:
    """Eigenvalue upper bounds on P1_G(k) (official code ``spectral_algorithms.py``).

    With G = Σ_j λ_j v_j v_jᵀ, 1_TᵀG1_T = Σ_j λ_j ⟨1_T, v_j⟩². For |T| = k, ⟨1_T, v_j⟩² ≤ cap_j(k) =
    max(|sum of the k largest entries of v_j|, |sum of the k smallest|)², and Σ_j ⟨1_T, v_j⟩² = k. The bound
    is the fractional knapsack: give the budget k to the largest positive λ_j first, each at most cap_j(k).
    Negative eigenvalues are dropped (they only lower the sum). O(n³) time, O(n²) memory.
    """
    G = np.asarray(G, dtype=np.float64)
    n = G.shape[0]
    kk = _check_k_max(k_max, n)
    lam, V = np.linalg.eigh((G + G.T) / 2)
    keep = lam > 0
    lam, V = lam[keep][::-1], V[:, keep][:, ::-1]  # descending positive eigenvalues
    if lam.size == 0:
        return np.zeros(kk)
    Vs = np.sort(V, axis=0)
    low = np.cumsum(Vs, axis=0)[:kk]  # sums of the k smallest entries, k = 1..kk
    high = np.cumsum(Vs[::-1], axis=0)[:kk]
    caps = np.maximum(np.abs(low), np.abs(high)) ** 2  # (kk, m)
    out = np.empty(kk)
    for k in range(1, kk + 1):
        c = np.minimum(caps[k - 1], k)
        before = np.concatenate([[0.0], np.cumsum(c)[:-1]])
        give = np.clip(k - before, 0.0, c)
        out[k - 1] = float(lam @ give)
    return out


def brute_force_p1(G: np.ndarray, k: int) -> float:
    """max_{|T| = k} 1_TᵀG1_T by enumerating all subsets (tiny n only)."""
    G = np.asarray(G, dtype=np.float64)
    subsets = np.array(list(itertools.combinations(range(G.shape[0]), k)))
    sub = G[subsets[:, :, None], subsets[:, None, :]]
    return float(sub.sum(axis=(1, 2)).max())
