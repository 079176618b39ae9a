"""Training throughput: one model at a time (``train``) vs stacked over a model axis (``train_stacked``).

The full reproduction's 15 fuzzy-logic models (5 mixers x 3 seeds); process CPU ms per model and training
step after a warm-up, the three modes interleaved, min over repetitions, one torch thread. Run:
``uv run --package iclr25-attention-hypernet python benchmarks/bench_stacked.py [batch] [d_model] [d_mlp]``.
"""

from __future__ import annotations

import copy
import sys
import time

import torch
from attention_hypernet.logic import FuzzyLogic
from attention_hypernet.training import TrainConfig, build_model, train, train_stacked
from paperkit import torch_threads

MIXERS = ("softmax", "linear", "hyla", "linear_rms_head", "hyla_no_rms_head")
STEPS, REPS = 20, 2


def main() -> None:
    args = [int(a) for a in sys.argv[1:4]]
    batch, d_model, d_mlp = args + [64, 64, 128][len(args) :]
    cfg = TrainConfig(d_model=d_model, d_mlp=d_mlp, steps=STEPS, batch_size=batch, lr=3e-3, warmup=1)
    jobs = [(m, s) for m in MIXERS for s in (0, 1, 2)]
    tasks = [FuzzyLogic(seed=s) for _, s in jobs]
    seeds = [s for _, s in jobs]
    models = [build_model(t, cfg, m, seed=s) for t, (m, s) in zip(tasks, jobs, strict=True)]
    train(copy.deepcopy(models[0]), tasks[0], cfg, seed=0)  # warm-up

    def single() -> None:
        for m, t, s in zip(models, tasks, seeds, strict=True):
            train(copy.deepcopy(m), t, cfg, seed=s)

    def per_mixer() -> None:
        for g in range(0, len(jobs), 3):
            train_stacked(
                [copy.deepcopy(m) for m in models[g : g + 3]], tasks[g : g + 3], cfg, seeds=seeds[g : g + 3]
            )

    def all_models() -> None:
        train_stacked([copy.deepcopy(m) for m in models], tasks, cfg, seeds=seeds)

    modes = {
        "one model at a time": single,
        "stacked, 3 seeds of a mixer": per_mixer,
        "stacked, all 15": all_models,
    }
    times: dict[str, list[float]] = {k: [] for k in modes}
    for _ in range(REPS):
        for name, fn in modes.items():
            t0 = time.process_time()
            fn()
            times[name].append((time.process_time() - t0) / (len(jobs) * STEPS) * 1e3)
    print(f"batch {batch}, d_model {d_model}, MLP {d_mlp}: CPU ms per model-step (min of {REPS}), 1 thread")
    base = min(times["one model at a time"])
    for name, ts in times.items():
        print(f"  {name:>28}: {min(ts):6.2f}  (x{base / min(ts):.2f})")


if __name__ == "__main__":
    with torch_threads(1):
        torch.manual_seed(0)
        main()
