"""Cost of Sebra against its peers, in process CPU seconds after warm-up, interleaved repetitions, one run.

1. Training cost (spec "Performance"): Sebra (ranking + contrastive stage) and the ERM-loss-rank ablation
   vs ERM and JTT (JTT = two trainings), on Digits-UrbanCars with the full run's epochs and n = 500.
   Expected: roughly 2-4x ERM.
2. Pair sampling: our vectorised ``sample_pairs`` vs the official code's per-sample sampling
   (``dataset/urbancars.py::__getitem__``: one ``np.random.choice`` per anchor for the negative, one for
   the positive with a fallback loop over higher ranks), re-implemented here as the peer.

    OMP_NUM_THREADS=1 python benchmarks/bench_sebra_cost.py [--reps 2] [--n 500]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch
from sebra.contrastive import sample_pairs
from sebra.data import make_digit_urbancars
from sebra.methods import MethodConfig, run_method


def official_pairs(y: np.ndarray, ranks: np.ndarray, gap: int, rng: np.random.Generator) -> np.ndarray:
    """The official per-anchor loop (positive and negative index per anchor)."""
    by = {c: {r: np.flatnonzero((y == c) & (ranks == r)) for r in np.unique(ranks)} for c in np.unique(y)}
    max_rank = {c: max(r for r, v in d.items() if len(v)) for c, d in by.items()}
    out = np.empty((len(y), 2), dtype=np.int64)
    for i in range(len(y)):
        c, r = y[i], ranks[i]
        pos_rank = min(r + gap, max_rank[c])
        cand = by[c].get(pos_rank, [])
        k = pos_rank
        while len(cand) == 0 and k < max_rank[c]:
            k += 1
            cand = by[c].get(k, [])
        out[i] = rng.choice(cand), rng.choice(by[c][r])
    return out


def cpu(fn) -> float:
    t = time.process_time()
    fn()
    return time.process_time() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--n", type=int, default=500)
    args = ap.parse_args()
    torch.set_num_threads(1)
    data = make_digit_urbancars(args.n, 200, 200, seed=0)
    cfg = MethodConfig()
    methods = ("erm", "jtt", "sebra", "erm-rank")
    run_method("erm", data["train"], data["val"], MethodConfig(epochs=1), seed=0)  # warm-up
    times: dict[str, list[float]] = {m: [] for m in methods}
    for rep in range(args.reps):
        for m in methods:  # interleaved
            times[m].append(
                cpu(lambda m=m, rep=rep: run_method(m, data["train"], data["val"], cfg, seed=rep))
            )
    erm = np.median(times["erm"])
    for m in methods:
        print(
            f"{m:9s} median {np.median(times[m]):7.2f} CPU-s  ratio to ERM {np.median(times[m]) / erm:5.2f}"
        )
    print(f"sebra / jtt: {np.median(times['sebra']) / np.median(times['jtt']):.2f}")

    g = torch.Generator().manual_seed(0)
    y = torch.randint(0, 2, (20_000,), generator=g)
    r = torch.randint(1, 10, (20_000,), generator=g)
    yn, rn, rng = y.numpy(), r.numpy(), np.random.default_rng(0)
    official_pairs(yn, rn, 2, rng)
    sample_pairs(y, r, torch.arange(len(y)), gap=2, generator=g)
    t_off, t_ours = [], []
    for _ in range(args.reps):
        t_off.append(cpu(lambda: official_pairs(yn, rn, 2, rng)))
        t_ours.append(cpu(lambda: sample_pairs(y, r, torch.arange(len(y)), gap=2, generator=g)))
    print(
        f"pair sampling, n = 20000: official loop {np.median(t_off) * 1e3:.1f} ms, ours "
        f"{np.median(t_ours) * 1e3:.2f} ms, speed-up {np.median(t_off) / np.median(t_ours):.0f}x"
    )


if __name__ == "__main__":
    main()
