"""The exactness check at scale, against the official code's sklearn KDTree check and the dense check.

    python packages/lpca-metric-embed/benchmarks/bench_check.py            # peer ratios, N <= 10^5
    python packages/lpca-metric-embed/benchmarks/bench_check.py --scale    # also N = 10^5 and 10^6 alone

Peer: the official HBDM-for-EED-search check, re-implemented here from its description (no code copied):
a ``sklearn.neighbors.KDTree`` (leaf_size = 4 ln N) over the stacked [X; Y], ``query_radius`` of every
x_i at radius β, hits kept in the Y block, self pairs dropped, then compared with the edge list as scipy
sparse matrices. Ours: two ``scipy.spatial.cKDTree`` and a dual-tree ``sparse_distance_matrix``, then
an exact float64 decision. Both run single-threaded. Graph: planted random geometric graph in [0, 1]^3,
expected degree 10, embedded exactly at D = 3 by its own positions (β = r).

``--scale`` runs each N in a fresh subprocess and reports its peak resident memory (ru_maxrss): the
graph build (KD-tree ``query_pairs``) and the check, separately timed.
"""

from __future__ import annotations

import json
import math
import os
import resource
import subprocess
import sys
import time

import numpy as np
import scipy.sparse as sp
from lpca_metric_embed import dense_mismatch, kdtree_mismatch, planted_rgg, rgg_radius


def sklearn_check(X: np.ndarray, Y: np.ndarray, beta: float, edge_index: np.ndarray) -> int:
    """Misclassified pairs, the official way (sklearn KDTree over [X; Y], radius query of X)."""
    from sklearn.neighbors import KDTree

    n = len(X)
    tree = KDTree(np.vstack([X, Y]), leaf_size=max(1, int(4 * math.log(2 * n))))
    hits = tree.query_radius(X, r=beta)
    rows = np.repeat(np.arange(n), [len(h) for h in hits])
    cols = np.concatenate(hits) if n else np.zeros(0, int)
    keep = (cols >= n) & (cols - n != rows)
    pred = sp.csr_array((np.ones(keep.sum()), (rows[keep], cols[keep] - n)), shape=(n, n))
    true = sp.csr_array((np.ones(edge_index.shape[1]), (edge_index[0], edge_index[1])), shape=(n, n))
    return int(abs(pred - true).sum())


def best(fn, repeat: int = 3) -> float:
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return min(out)


def peer_table() -> None:
    print(
        "exactness check of a planted RGG (D = 3, degree 10): "
        "ours (cKDTree) vs official-style sklearn KDTree vs dense"
    )
    print(f"{'N':>8} {'ours s':>9} {'sklearn s':>10} {'dense s':>9} {'sklearn/ours':>13} {'dense/ours':>11}")
    for n in (2_000, 10_000, 30_000, 100_000):
        g, pos = planted_rgg(n, 3, seed=0, degree=10)
        r = rgg_radius(n, 3, 10)
        assert kdtree_mismatch(pos, pos, r, g).exact and sklearn_check(pos, pos, r, g.edge_index) == 0
        t_ours = best(lambda pos=pos, r=r, g=g: kdtree_mismatch(pos, pos, r, g))
        t_sk = best(lambda pos=pos, r=r, g=g: sklearn_check(pos, pos, r, g.edge_index))
        if n <= 10_000:
            t_dense = best(lambda pos=pos, r=r, g=g: dense_mismatch(pos, pos, r, g), repeat=1)
            print(
                f"{n:>8} {t_ours:>9.4f} {t_sk:>10.4f} {t_dense:>9.3f} {t_sk / t_ours:>13.2f} "
                f"{t_dense / t_ours:>11.1f}"
            )
        else:
            print(f"{n:>8} {t_ours:>9.4f} {t_sk:>10.4f} {'refused':>9} {t_sk / t_ours:>13.2f} {'-':>11}")


def one(n: int, d: int) -> dict[str, float]:
    t0 = time.perf_counter()
    g, pos = planted_rgg(n, d, seed=0, degree=10)
    t_build = time.perf_counter() - t0
    r = rgg_radius(n, d, 10)
    t0 = time.perf_counter()
    m = kdtree_mismatch(pos, pos, r, g)
    t_check = time.perf_counter() - t0
    return {
        "N": n,
        "d": d,
        "links": g.n_links,
        "exact": m.exact,
        "build_s": t_build,
        "check_s": t_check,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def scale_table() -> None:
    print("\nexactness check alone at scale (each N in a fresh process; planted RGG, degree 10)")
    print(
        f"{'N':>9} {'d':>2} {'ordered links':>14} {'exact':>6} {'build s':>8} {'check s':>8} "
        f"{'peak RSS MB':>12}"
    )
    for n in (100_000, 1_000_000):
        out = subprocess.run(
            [sys.executable, __file__, "--one", str(n), "3"],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "OMP_NUM_THREADS": "1"},
        )
        res = json.loads(out.stdout.strip().splitlines()[-1])
        print(
            f"{res['N']:>9} {res['d']:>2} {res['links']:>14} {res['exact']!s:>6} {res['build_s']:>8.2f} "
            f"{res['check_s']:>8.2f} {res['peak_rss_mb']:>12.0f}"
        )


if __name__ == "__main__":
    if "--one" in sys.argv:
        k = sys.argv.index("--one")
        print(json.dumps(one(int(sys.argv[k + 1]), int(sys.argv[k + 2]))))
    else:
        peer_table()
        if "--scale" in sys.argv:
            scale_table()
