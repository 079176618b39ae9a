"""brian2 (numpy runtime codegen) vs torch no-grad forward at full scale (4,218 neurons, ~1.24 M synapses).

    python benchmarks/bench_brian2.py [--T 110] [--target numpy]

Both simulate the same untrained network in the jacobi order, float64, one trial; wall seconds per
simulated second (1,000 steps of dt = 1 ms), the brian2 / torch ratios, and the raster agreement.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch
from barrel_snn.brian import simulate
from barrel_snn.models import BarrelSNN


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--T", type=int, default=110)
    ap.add_argument("--target", default="numpy")
    a = ap.parse_args()
    torch.set_num_threads(1)
    g = torch.Generator().manual_seed(0)
    xf = (torch.rand(1, a.T, 93, generator=g) < 0.1).double()
    xt = (torch.rand(1, a.T, 93, generator=g) < 0.1).double()
    res = {}
    rasters = {}
    for sparse in (False, True):
        m = BarrelSNN(scale=1.0, update_order="jacobi", sparse=sparse, dtype=torch.float64, seed=0)
        t0 = time.perf_counter()
        with torch.no_grad():
            _, rec = m(xf, xt, record=True)
        res["torch sparse" if sparse else "torch dense"] = time.perf_counter() - t0
        rasters["torch"] = rec.spikes[:, 0].numpy() > 0.5
    st = m.initial_state(1)
    run = simulate(
        m.export(), rec.thalamic[:, 0].numpy() > 0.5, st["u"][0].numpy(), st["s"][0].numpy(), a.target
    )
    res[f"brian2 {a.target} (run)"] = run.run_s
    agree = float(np.mean(run.spikes == rasters["torch"]))
    print(f"full scale: {m.n} neurons, {len(m.w_rec)} synapses, T = {a.T}; brian2 build {run.build_s:.2f} s")
    print("| simulator | s per simulated second (1000 steps) |")
    print("|---|---|")
    for k, v in res.items():
        print(f"| {k} | {1000 * v / a.T:.2f} |")
    b = res[f"brian2 {a.target} (run)"]
    print(
        f"brian2 / torch dense = {b / res['torch dense']:.2f}; brian2 / torch sparse = "
        f"{b / res['torch sparse']:.2f}; identical raster fraction = {agree:.6f}"
    )


if __name__ == "__main__":
    main()
