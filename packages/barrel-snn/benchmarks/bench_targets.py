"""Simulated seconds per wall second and per CPU second: torch (no-grad forward, dense / CSR) and every
brian2 target, at scales 0.1, 0.5 and 1 (issue 40).

    python benchmarks/bench_targets.py [--scales 0.1 0.5 1] [--T 110] [--reps 3] [--targets ...]

One untrained network per scale (jacobi order, float64, one trial, seed 0), the same thalamic spikes for
every simulator. Repetitions are interleaved (rep 1 of every simulator, then rep 2, ...) and the median is
printed, as the machine is shared. Wall and CPU are of the simulation loop only (brian2 ``run_s``,
``run_cpu_s``); compiled targets are warmed by one run first (its wall time, compile included, is the
"first-run" column). CPU seconds of cpp_standalone are those of the compiled program (a child process),
its wall seconds the program's own timer.
Every brian2 raster is checked against torch's: the last column is the number of differing entries.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import time
from collections.abc import Callable

import numpy as np
import torch
from barrel_snn.brian import simulate
from barrel_snn.models import BarrelSNN


def _cpu() -> float:
    """Process CPU of this process and its (waited-for) children."""
    ch = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + ch.ru_utime + ch.ru_stime


def _torch_runner(scale: float, sparse: bool, xf: torch.Tensor, xt: torch.Tensor) -> Callable:
    m = BarrelSNN(scale=scale, update_order="jacobi", sparse=sparse, dtype=torch.float64, seed=0)

    def run() -> tuple[float, float, np.ndarray]:
        c0, w0 = _cpu(), time.perf_counter()
        with torch.no_grad():
            _, rec = m(xf, xt, record=True)
        return time.perf_counter() - w0, _cpu() - c0, rec.spikes[:, 0].numpy() > 0.5

    return run


def _brian_runner(target: str, params: dict, thal: np.ndarray, u0: np.ndarray, s0: np.ndarray, folder: str):
    def run() -> tuple[float, float, np.ndarray]:
        r = simulate(params, thal, u0, s0, target, directory=folder)
        return r.run_s, r.run_cpu_s, r.spikes

    return run


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scales", type=float, nargs="+", default=[0.1, 0.5, 1.0])
    ap.add_argument("--T", type=int, default=110)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--targets", nargs="+", default=["numpy", "cython", "cpp_standalone"])
    ap.add_argument("--folder", default="/tmp/barrel_snn_bench_cpp")
    a = ap.parse_args()
    torch.set_num_threads(1)
    import brian2

    brian2.prefs.devices.cpp_standalone.extra_make_args_unix = ["-j1"]  # the machine is shared
    g = torch.Generator().manual_seed(0)
    xf = (torch.rand(1, a.T, 93, generator=g) < 0.1).double()
    xt = (torch.rand(1, a.T, 93, generator=g) < 0.1).double()
    print(f"T = {a.T} steps (1 ms each), {a.reps} interleaved repetitions, medians; one torch thread")
    print("| scale | neurons | simulator | sim s / wall s | sim s / CPU s | first-run wall s | mismatches |")
    print("|---|---|---|---|---|---|---|")
    for scale in a.scales:
        m = BarrelSNN(scale=scale, update_order="jacobi", dtype=torch.float64, seed=0)
        with torch.no_grad():
            _, rec = m(xf, xt, record=True)
        st = m.initial_state(1)
        thal, u0, s0 = rec.thalamic[:, 0].numpy() > 0.5, st["u"][0].numpy(), st["s"][0].numpy()
        runners = {
            "torch dense": _torch_runner(scale, False, xf, xt),
            "torch CSR": _torch_runner(scale, True, xf, xt),
        }
        folder = os.path.join(a.folder, f"scale{scale:g}")
        for t in a.targets:
            runners[f"brian2 {t}"] = _brian_runner(t, m.export(), thal, u0, s0, folder)
        first, res = {}, {k: [] for k in runners}
        for k, f in runners.items():  # warm-up (compiles): timed separately
            w0 = time.perf_counter()
            _, _, raster = f()
            first[k] = (time.perf_counter() - w0, int(np.sum(raster != (rec.spikes[:, 0].numpy() > 0.5))))
        for _ in range(a.reps):
            for k, f in runners.items():
                res[k].append(f()[:2])
        for k, v in res.items():
            wall = statistics.median(x[0] for x in v)
            cpu = statistics.median(x[1] for x in v)
            sim = a.T / 1000
            print(
                f"| {scale:g} | {m.n} | {k} | {sim / wall:.3g} | {sim / max(cpu, 1e-9):.3g} | "
                f"{first[k][0]:.1f} | {first[k][1]} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
