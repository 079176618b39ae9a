"""Riccati solvers and learners: speed against scipy's DARE solver, and scaling in n and T.

    uv run --package rslqr python packages/rslqr/benchmarks/bench_riccati.py

Peer: ``scipy.linalg.solve_discrete_are`` (the risk-neutral stationary Riccati equation). At γ = 0 our
``stationary_leqr`` solves the same equation by fixed-point iteration of the finite-horizon recursion, so
the two must agree; the ratio says what the simple iteration costs against a Schur-based solver. Also
measured: one finite-horizon ``leqr_gains`` pass vs n and T (it should scale ~linearly in T, ~cubically
in n for larger n), and episodes per second of Algorithms 1 and 2.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
from rslqr import leqr_gains, regret_curve, stationary_leqr, system_a
from scipy.linalg import solve_discrete_are


def best_of(fn: Callable[[], object], repeat: int = 5, number: int = 20) -> float:
    """Best mean seconds per call over ``repeat`` rounds of ``number`` calls."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t0) / number)
    return min(times)


def random_system(n: int, m: int, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    A = rng.normal(size=(n, n))
    A *= 0.95 / max(abs(np.linalg.eigvals(A)))  # stable, so both solvers converge
    B = rng.normal(size=(n, m))
    return A, B, np.eye(n), np.eye(m), 0.05 * np.eye(n)


def main() -> None:
    rng = np.random.default_rng(0)
    print("stationary Riccati at γ = 0: rslqr.stationary_leqr vs scipy.linalg.solve_discrete_are")
    print(f"{'n':>3} {'m':>3} {'max|ΔP|':>10} {'ours (ms)':>10} {'scipy (ms)':>11} {'ratio':>7}")
    for n, m in [(2, 1), (5, 2), (10, 3)]:
        A, B, Q, R, W = random_system(n, m, rng)
        ours = stationary_leqr(A, B, Q, R, W, 0.0)
        peer = solve_discrete_are(A, B, Q, R)
        t_ours = best_of(lambda A=A, B=B, Q=Q, R=R, W=W: stationary_leqr(A, B, Q, R, W, 0.0), number=5)
        t_peer = best_of(lambda A=A, B=B, Q=Q, R=R: solve_discrete_are(A, B, Q, R), number=5)
        print(
            f"{n:>3} {m:>3} {np.abs(ours - peer).max():>10.2e} {1e3 * t_ours:>10.3f} {1e3 * t_peer:>11.3f} "
            f"{t_ours / t_peer:>7.2f}"
        )

    print("\nfinite-horizon leqr_gains (γ = 0.05), one backward pass")
    print(f"{'n':>3} {'T':>4} {'µs / pass':>10} {'µs / step':>10}")
    for n in (2, 5, 10):
        A, B, Q, R, W = random_system(n, 1, rng)
        for T in (5, 10, 50):
            t = best_of(lambda A=A, B=B, Q=Q, R=R, W=W, T=T: leqr_gains(A, B, Q, R, Q, W, T, 0.05))
            print(f"{n:>3} {T:>4} {1e6 * t:>10.1f} {1e6 * t / T:>10.1f}")

    print("\nlearners on System A (γ = 0.05, T = 10), 1 seed, 1024 episodes")
    for alg in ("alg1", "alg2"):
        t0 = time.perf_counter()
        regret_curve(alg, system_a(gamma=0.05), 1024, [0])
        dt = time.perf_counter() - t0
        print(f"{alg}: {1024 / dt:8.0f} episodes/s")


if __name__ == "__main__":
    main()
