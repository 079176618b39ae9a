"""Empirical NTK: torch.func (vmap + jacrev) and the hand-written Gram vs a naive per-sample loop.

Process CPU time, after warm-up, repetitions interleaved, one thread. Run:
``OMP_NUM_THREADS=1 python benchmarks/bench_empirical_ntk.py``.
"""

from __future__ import annotations

import time
from functools import partial

import numpy as np
import torch
from ntk_divergence.backprop import ntk_gram
from ntk_divergence.data import synthetic_sphere
from ntk_divergence.empirical import empirical_ntk
from ntk_divergence.models import FCN, ResNet


def naive_loop(model: FCN | ResNet, X: torch.Tensor) -> torch.Tensor:
    rows = []
    for x in X:  # the peer: one backward pass per sample
        g = torch.autograd.grad(model(x[None])[0], list(model.parameters()))
        rows.append(torch.cat([t.reshape(-1) for t in g]))
    J = torch.stack(rows)
    return (J @ J.T).detach()


def main() -> None:
    torch.set_num_threads(1)
    for arch, n, m, depth in [("FCN", 20, 512, 1), ("FCN", 20, 2048, 1), ("FCN", 50, 512, 2),
                              ("ResNet", 20, 512, 1)]:  # fmt: skip
        X, _ = synthetic_sphere(n, 5, seed=0)
        Xt = torch.as_tensor(X)
        gen = torch.Generator().manual_seed(0)
        model = FCN(5, m, depth, generator=gen) if arch == "FCN" else ResNet(5, m, depth, generator=gen)
        params = {k: v.detach().numpy() for k, v in model.named_parameters()}
        fns = {
            "naive loop": partial(naive_loop, model, Xt),
            "torch.func": partial(empirical_ntk, model, Xt),
            "hand-written": partial(ntk_gram, params, model, X),
        }
        for f in fns.values():  # warm-up (torch.func's first call imports torch._dynamo)
            f()
        times: dict[str, list[float]] = {k: [] for k in fns}
        for _ in range(5):
            for k, f in fns.items():
                t = time.process_time()
                f()
                times[k].append(time.process_time() - t)
        med = {k: float(np.median(v)) for k, v in times.items()}
        ratios = ", ".join(f"{k} {1e3 * v:.2f} ms ({med['naive loop'] / v:.1f}x)" for k, v in med.items())
        print(f"{arch} n={n} m={m} depth={depth}: {ratios}")


if __name__ == "__main__":
    main()
