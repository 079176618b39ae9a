"""Time per training step vs scale: dense masked synapses (the official code's F.linear(x, W * mask) per
population pair, here one masked matrix) vs sparse COO synapses.

    python benchmarks/bench_synapses.py [--scales 0.05 0.1 0.25 0.5] [--batch 8] [--T 50]

One torch thread; sequential (official) update order; prints seconds per step and the dense/sparse ratio.
"""

from __future__ import annotations

import argparse
import time

import torch
from barrel_snn.models import BarrelSNN, loss_fn


def step_time(scale: float, sparse: bool, batch: int, T: int, reps: int) -> float:
    model = BarrelSNN(scale=scale, sparse=sparse, seed=0)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    g = torch.Generator().manual_seed(0)
    xf = (torch.rand(batch, T, 93, generator=g) < 0.1).float()
    xt = (torch.rand(batch, T, 93, generator=g) < 0.1).float()
    y = torch.arange(batch) % 3
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        opt.zero_grad()
        out, _ = model(xf, xt)
        loss_fn(out, y, T).backward()
        opt.step()
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scales", type=float, nargs="+", default=[0.05, 0.1, 0.25, 0.5])
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--T", type=int, default=50)
    ap.add_argument("--reps", type=int, default=2)
    a = ap.parse_args()
    torch.set_num_threads(1)
    print("| scale | neurons | dense s/step | sparse s/step | dense / sparse |")
    print("|---|---|---|---|---|")
    for s in a.scales:
        n = BarrelSNN(scale=s).n
        d = step_time(s, False, a.batch, a.T, a.reps)
        sp = step_time(s, True, a.batch, a.T, a.reps)
        print(f"| {s:g} | {n} | {d:.3f} | {sp:.3f} | {d / sp:.2f} |", flush=True)


if __name__ == "__main__":
    main()
