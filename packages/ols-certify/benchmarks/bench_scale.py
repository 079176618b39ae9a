"""ACRE at scale: blocked vs the official code's dense algorithm, time-vs-n scaling, n = 10⁴ / d = 100.

    uv run --package ols-certify python packages/ols-certify/benchmarks/bench_scale.py [--skip-big]

Peer: the official code (github.com/ittai-rubinstein/ols_robustness) forms each n×n Gram matrix, sorts every
full row and evaluates the top-k sums with one partition per k (``refined_triangle_inequality_ips``). It is
not an installable package (it needs its repository layout, dask and statsmodels), so ``dense_reference``
below transcribes that algorithm in numpy; ratios are its time and peak memory over ours on the same data.
Our ``acre_bounds`` streams row blocks of each Gram matrix and keeps only per-row prefix sums up to k_max.
Also: KZC21 by Sherman–Morrison against explicit refits. Single-threaded BLAS; peak memory by tracemalloc
(numpy reports its buffers to it).
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np
from ols_certify import acre_bounds, combine, kzc21, kzc21_naive
from threadpoolctl import threadpool_limits


def measure(fn: Callable[[], Any]) -> tuple[Any, float, float]:
    """(result, CPU seconds of this process, peak MB of new allocations).

    CPU time, not wall time: the build machine is shared, and with single-threaded BLAS the process's CPU
    time is what the computation costs (wall time is printed for the big case only)."""
    tracemalloc.start()
    t0 = time.process_time()
    out = fn()
    dt = time.process_time() - t0
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return out, dt, peak


def dense_triangle(G: np.ndarray, k_max: int) -> np.ndarray:
    """The official refined triangle inequality, transcribed: zero the diagonal, sort full rows, prefix sums,
    then one partition of a column per k (returns the P1 bound, not its square root)."""
    n = G.shape[0]
    G = G.copy()
    diag = np.diag(G).copy()
    np.fill_diagonal(G, 0)
    rows = -np.sort(-G, axis=1)
    adj = np.cumsum(np.hstack((np.zeros((n, 1)), rows)), axis=1) + diag[:, None]
    return np.array([np.sum(-np.partition(-adj[:, k - 1], k)[:k]) for k in range(1, k_max + 1)])


def dense_reference(X: np.ndarray, y: np.ndarray, k_max: int) -> np.ndarray:
    """U(k) with the four n×n Gram matrices formed one at a time (the official code's memory profile)."""
    Q, Rx = np.linalg.qr(X)
    beta = np.linalg.solve(Rx, Q.T @ y)
    s = 1.0 if beta[0] >= 0 else -1.0
    R = s * (y - X @ beta)
    Z = Q @ np.linalg.solve(Rx.T, np.eye(X.shape[1])[0])
    H = Q @ Q.T
    p1 = {
        "xzr": dense_triangle(0.5 * (np.outer(Z, R) + np.outer(R, Z)) * H, k_max),
        "xr": dense_triangle(np.outer(R, R) * H, k_max),
        "xz": dense_triangle(np.outer(Z, Z) * H, k_max),
        "cs": dense_triangle(H**2, k_max),
    }
    lin = np.cumsum(-np.sort(-(Z * R)))[:k_max]
    return combine(lin, p1["xzr"], p1["xr"], p1["xz"], p1["cs"]).total


def data(n: int, d: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d)) / np.sqrt(n), rng.normal(size=n) / np.sqrt(n)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--skip-big", action="store_true", help="skip n = 10^4, d = 100")
    args = ap.parse_args()
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, single-threaded BLAS")

    print(
        "\nACRE (k_max = n/10) vs n at d = 20: ours (blocked) and the official dense algorithm (transcribed)"
    )
    print(
        f"{'n':>6} {'ours cpu s':>10} {'ours MB':>8} {'dense cpu s':>11} {'dense MB':>9} {'time ratio':>10} "
        f"{'mem ratio':>9} {'max|ΔU|/U':>10}"
    )
    ns, ts = [], []
    Xw, yw = data(300, 5)  # warm-up: lazy imports and first-call costs out of the timings
    acre_bounds(Xw, yw, 0, 30)
    dense_reference(Xw, yw, 30)
    for n in (1000, 2000, 4000, 8000):
        X, y = data(n, 20)
        k = n // 10
        ours, t_o, m_o = measure(lambda X=X, y=y, k=k: acre_bounds(X, y, 0, k).total)
        ns.append(n)
        ts.append(t_o)
        if n <= 4000:
            ref, t_d, m_d = measure(lambda X=X, y=y, k=k: dense_reference(X, y, k))
            ok = np.isfinite(ours) & np.isfinite(ref)
            err = float(np.max(np.abs(ours[ok] - ref[ok]) / np.abs(ref[ok])))
            print(
                f"{n:>6} {t_o:>10.2f} {m_o:>8.0f} {t_d:>11.2f} {m_d:>9.0f} "
                f"{t_d / t_o:>10.2f} {m_d / m_o:>9.1f} "
                f"{err:>10.1e}"
            )
        else:
            print(
                f"{n:>6} {t_o:>10.2f} {m_o:>8.0f} {'-':>11} "
                f"{f'>{4 * 8 * n * n / 2**20:.0f}':>9} (dense not run)"
            )
    slope = np.polyfit(np.log(ns), np.log(ts), 1)[0]
    print(f"log-log slope of our CPU time vs n (d = 20, k_max = n/10): {slope:.2f} (O(n²) work: 2)")

    with threadpool_limits(1):
        X, y = data(200, 5)
        _, t_sm, _ = measure(lambda: kzc21(X, y, 0, 10))
        _, t_nv, _ = measure(lambda: kzc21_naive(X, y, 0, 10))
    print(
        f"\nKZC21, n = 200, d = 5, 10 rounds: Sherman–Morrison {1e3 * t_sm:.1f} ms, explicit refits "
        f"{1e3 * t_nv:.0f} ms, ratio {t_nv / t_sm:.0f}x"
    )

    if not args.skip_big:
        n, d = 10_000, 100
        X, y = data(n, d)
        w0 = time.perf_counter()
        b, t, m = measure(lambda: acre_bounds(X, y, 0, n // 10))
        wall = time.perf_counter() - w0
        import resource

        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(
            f"\nn = {n}, d = {d}, k_max = {n // 10}: ACRE {t:.1f} CPU s ({wall:.1f} s wall), "
            f"tracemalloc peak {m:.0f} MB, process max RSS "
            f"{rss:.0f} MB; one n×n float64 Gram matrix would be {8 * n * n / 2**20:.0f} MB "
            f"(the dense algorithm holds ~4 such arrays at once)"
        )
        _, t_k, m_k = measure(lambda: kzc21(X, y, 0, n // 10))
        print(
            f"KZC21 there ({n // 10} rounds): {t_k:.1f} CPU s, peak {m_k:.0f} MB; U(k) finite up to k = "
            f"{int(np.isfinite(b.total).sum())}"
        )


if __name__ == "__main__":
    with threadpool_limits(1):
        main()
