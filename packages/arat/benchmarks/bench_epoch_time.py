"""Time per training epoch: ARAT and TRADES vs our PGD-AT (the paper's Table 19 peer), CPU seconds.

Run: ``uv run --package iclr25-arat python benchmarks/bench_epoch_time.py``. One process, one torch
thread; one warm-up epoch per method, then ``REPS`` (3) interleaved single-epoch repetitions (AT, ARAT,
TRADES, AT, ...), process CPU time per epoch; prints medians and the ratios to AT
(paper, CIFAR-10 ResNet-18 on a GPU: ARAT 1.15x, TRADES 1.51x).
"""

from __future__ import annotations

import time

import numpy as np
import torch
from arat.methods import method_config
from arat.models import backbone
from arat.training import train
from paperkit.vision import load_digits

REPS = 3
METHODS = ("at", "arat", "trades")


def main() -> None:
    torch.set_num_threads(1)
    d = load_digits(8, seed=0)
    models = {m: backbone(channels=(16, 32, 32, 32), split_bn=m == "arat", seed=0) for m in METHODS}
    cfgs = {m: method_config(m, epochs=1, eps=0.3) for m in METHODS}
    for m in METHODS:  # warm-up
        train(models[m], d.x_train, d.y_train, cfgs[m], seed=0)
    times: dict[str, list[float]] = {m: [] for m in METHODS}
    for rep in range(REPS):
        for m in METHODS:
            t0 = time.process_time()
            train(models[m], d.x_train, d.y_train, cfgs[m], seed=rep + 1)
            times[m].append(time.process_time() - t0)
    base = float(np.median(times["at"]))
    for m in METHODS:
        med = float(np.median(times[m]))
        print(f"{m:7s} median {med:.3f} CPU-s/epoch over {REPS} reps  ratio to AT {med / base:.2f}x")


if __name__ == "__main__":
    main()
