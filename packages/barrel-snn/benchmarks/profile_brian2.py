"""Where the full-scale brian2 cpp_standalone run spends its time (issue 40).

    python benchmarks/profile_brian2.py [--scale 1] [--T 110] [--repeat 9] [--variants base omp2 nomon]

One untrained network (jacobi order, float64, seed 0); its thalamic spikes of one torch trial of ``T``
steps, tiled ``repeat`` times (so the loop is long enough to time). Each variant is compiled in its own
project folder (``-j1``: the machine is shared) and run with ``net.run(..., profile=True)``; printed per
variant: the program's own run time (wall), the simulated seconds per wall second, the CPU seconds of the
program (a child process) and brian2's ``profiling_summary`` (time per code object). Variants:

- ``base``: as :func:`barrel_snn.brian.simulate` builds it (one thread, spike monitor on);
- ``omp2``: ``prefs.devices.cpp_standalone.openmp_threads = 2``;
- ``nomon``: the spike monitor removed from the network (the raster is then not recorded).

The rasters of ``base`` and ``omp2`` are compared (they must be identical).
"""

from __future__ import annotations

import argparse
import os
import resource
import time

import numpy as np
import torch
from barrel_snn.brian import to_brian2
from barrel_snn.models import BarrelSNN


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def run_variant(name: str, params: dict, thal: np.ndarray, u0: np.ndarray, s0: np.ndarray, root: str) -> dict:
    import brian2 as b2

    folder = os.path.join(root, name)
    b2.prefs.devices.cpp_standalone.openmp_threads = 2 if name == "omp2" else 0
    b2.set_device("cpp_standalone", directory=folder, build_on_run=False)
    try:
        w0 = time.perf_counter()
        net, mon = to_brian2(params, thal, u0, s0, "numpy")
        if name == "nomon":
            net.remove(mon)
        net.run((thal.shape[0] + 1) * b2.ms, namespace={}, profile=True)
        b2.device.build(directory=folder, compile=True, run=False, with_output=False)
        build = time.perf_counter() - w0
        c0 = _children_cpu()
        b2.device.run(directory=folder, results_directory="results", with_output=False, run_args=[])
        cpu = _children_cpu() - c0
        run_s = float(b2.device._last_run_time)
        summary = str(b2.profiling_summary(net))
        raster = None
        if name != "nomon":
            raster = np.zeros((thal.shape[0], len(u0)), dtype=bool)
            k = np.round(np.asarray(mon.t / b2.ms)).astype(np.int64) - 1
            raster[k, np.asarray(mon.i)] = True
    finally:
        b2.device.reinit()
        b2.set_device("runtime")
    return {"run_s": run_s, "cpu_s": cpu, "build_s": build, "summary": summary, "raster": raster}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--T", type=int, default=110)
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--variants", nargs="+", default=["base", "omp2", "nomon"])
    ap.add_argument("--folder", default="/tmp/barrel_snn_profile_cpp")
    a = ap.parse_args()
    torch.set_num_threads(1)
    import brian2

    brian2.prefs.devices.cpp_standalone.extra_make_args_unix = ["-j1"]
    g = torch.Generator().manual_seed(0)
    xf = (torch.rand(1, a.T, 93, generator=g) < 0.1).double()
    xt = (torch.rand(1, a.T, 93, generator=g) < 0.1).double()
    m = BarrelSNN(scale=a.scale, update_order="jacobi", dtype=torch.float64, seed=0)
    with torch.no_grad():
        _, rec = m(xf, xt, record=True)
    st = m.initial_state(1)
    thal = np.tile(rec.thalamic[:, 0].numpy() > 0.5, (a.repeat, 1))
    u0, s0 = st["u"][0].numpy(), st["s"][0].numpy()
    params = m.export()
    sim = thal.shape[0] / 1000
    print(f"scale {a.scale:g}: {m.n} neurons, {len(params['rec_w'])} recurrent synapses; {len(thal)} steps")
    rasters = {}
    for name in a.variants:
        r = run_variant(name, params, thal, u0, s0, a.folder)
        rasters[name] = r["raster"]
        print(f"\n## {name}: run {r['run_s']:.3f} s wall = {sim / r['run_s']:.2f}x real time; program CPU "
              f"{r['cpu_s']:.2f} s; build {r['build_s']:.1f} s wall")  # fmt: skip
        print(r["summary"], flush=True)
    if rasters.get("base") is not None and rasters.get("omp2") is not None:
        print(f"\nbase vs omp2 rasters: {int(np.sum(rasters['base'] != rasters['omp2']))} differing entries")


if __name__ == "__main__":
    main()
