"""Training-step cost: DFF vs ReLU at equal post-activation width, our Adam vs torch.optim.Adam, and a
Plasticine-style DFF layer (``Linear(n)`` then ``[sin; cos]``: twice the features, the "match_units"
convention of the Plasticine library's ``DFFLayer4Linear``; re-stated here, the library is not on PyPI).

Process CPU time per step after a warm-up, repetitions interleaved, one thread, batch 64, MLP 64 -> 2 x 128
-> 10 (the reproduction's network). Run: ``python benchmarks/bench_steps.py``.
"""

from __future__ import annotations

import time

import torch
from deep_fourier.models import network
from paperkit.optim import Adam

STEPS, WARMUP, REPS = 300, 50, 3


def make(kind: str):
    if kind == "plasticine-dff":
        model = network("dff", 64, (128, 128), 10, width_mode="match_units", seed=0)
    else:
        model = network(kind.split("/")[0], 64, (128, 128), 10, seed=0)
    opt = (
        torch.optim.Adam(model.parameters(), lr=1e-3)
        if kind.endswith("torch-adam")
        else Adam(model.parameters())
    )
    return model, opt


def cost(model, opt, x, y, n: int) -> float:
    t = time.process_time()
    for s in range(n):
        loss = torch.nn.functional.cross_entropy(model(x[s % len(x)]), y[s % len(y)])
        opt.zero_grad()
        loss.backward()
        opt.step()
    return (time.process_time() - t) / n


def main() -> None:
    torch.set_num_threads(1)
    g = torch.Generator().manual_seed(0)
    x, y = torch.rand(16, 64, 64, generator=g), torch.randint(0, 10, (16, 64), generator=g)
    kinds = ["relu", "dff", "crelu", "plasticine-dff", "relu/torch-adam", "dff/torch-adam"]
    setups = {k: make(k) for k in kinds}
    for m, o in setups.values():
        cost(m, o, x, y, WARMUP)
    times: dict[str, list[float]] = {k: [] for k in kinds}
    for _ in range(REPS):
        for k, (m, o) in setups.items():
            times[k].append(cost(m, o, x, y, STEPS))
    base = min(times["relu"])
    for k in kinds:
        t = min(times[k])
        print(f"{k:18s} {1e3 * t:6.3f} ms/step  {1 / t:7.0f} steps/s  x{t / base:.2f} of ReLU")


if __name__ == "__main__":
    main()
