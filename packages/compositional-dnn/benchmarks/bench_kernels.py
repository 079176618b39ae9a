"""Matérn Gram matrices and KRR: ours vs scikit-learn (the spec's named peer), process CPU time.

After warm-up, repetitions interleaved, one thread. Run:
``OMP_NUM_THREADS=1 python benchmarks/bench_kernels.py`` (needs scikit-learn).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from functools import partial

import numpy as np
from compositional_dnn.kernels import matern_kernel
from compositional_dnn.methods import matern_krr
from sklearn.gaussian_process.kernels import Matern
from sklearn.kernel_ridge import KernelRidge


def timed(fns: dict[str, Callable[[], object]], reps: int = 5) -> dict[str, float]:
    for f in fns.values():  # warm-up
        f()
    times: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(reps):
        for k, f in fns.items():
            t = time.process_time()
            f()
            times[k].append(time.process_time() - t)
    return {k: float(np.median(v)) for k, v in times.items()}


def report(what: str, med: dict[str, float]) -> None:
    ratio = med["sklearn"] / med["ours"]
    print(f"{what}: sklearn {1e3 * med['sklearn']:.1f} ms, ours {1e3 * med['ours']:.1f} ms ({ratio:.1f}x)")


def main() -> None:
    rng = np.random.default_rng(0)
    for n in (500, 1000):
        X = rng.standard_normal((n, 15))
        Y = rng.standard_normal((n, 20))
        for nu in (0.5, 2.5, math.inf, 1.3):
            sk = Matern(length_scale=math.sqrt(15), nu=nu)  # Euclidean / sqrt(d) = our RMS distance
            fns = {"sklearn": partial(sk, X), "ours": partial(matern_kernel, X, nu)}
            report(f"Gram n={n} nu={nu:g}", timed(fns))
        kr = KernelRidge(alpha=1e-2, kernel=Matern(length_scale=math.sqrt(15), nu=0.5))
        fns = {
            "sklearn": partial(lambda k, a, b: k.fit(a, b).predict(a[:200]), kr, X, Y),
            "ours": partial(matern_krr, X, Y, X[:200], nu=0.5, ridge=1e-2),
        }
        report(f"KRR fit+predict n={n}", timed(fns))


if __name__ == "__main__":
    main()
