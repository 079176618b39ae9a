"""The full exact-dimension search on growing planted random geometric graphs, within a time budget.

    python packages/lpca-metric-embed/benchmarks/bench_search.py [--budget 600] [--sizes 2000,5000,...]

Algorithm 1 with the large-graph trainer (:func:`lpca_metric_embed.fit_active_set`: KD-tree active set,
hinge, Adam lr 0.25, ReduceLROnPlateau, check every 5 iterations; a case-control logistic warm-up of 200
steps stands in for the HBDM phase 1 at D_max). Graph: planted RGG in [0, 1]^2, expected degree 10
(exact at D = 2 by construction). Search range D in [1, 8]. Sizes run in increasing order; the script
stops starting new sizes once one search has taken more than half the budget, and reports, per size, the
D* found, fits, total iterations and wall time. Peer: one full-batch training step (``fit``'s O(N² D)
step over all dyads) against one active-set step (O(|active| D)), timed first at N = 2,000 and 5,000.
Single-threaded.
"""

from __future__ import annotations

import sys
import time

import numpy as np
import torch
from lpca_metric_embed import find_eed, kdtree_mismatch, planted_rgg


def step_times(n: int, dim: int = 4, steps: int = 10) -> tuple[float, float, int]:
    """Seconds per full-batch step and per active-set step at N = n (the active set of a random start)."""
    from lpca_metric_embed.losses import dense_loss
    from lpca_metric_embed.models import L2Embedding
    from paperkit.optim import Adam

    g, _ = planted_rgg(n, 2, seed=0, degree=10)
    gen = torch.Generator().manual_seed(0)
    net = L2Embedding(
        torch.randn(n, dim, generator=gen, dtype=torch.float64),
        torch.randn(n, dim, generator=gen, dtype=torch.float64),
        0.5,
    )
    opt = Adam(net.parameters(), lr=0.25)
    loss = dense_loss("hinge", torch.as_tensor(g.dense()))
    t0 = time.perf_counter()
    for _ in range(steps):
        opt.zero_grad()
        loss(net.logits()).backward()
        opt.step()
    t_dense = (time.perf_counter() - t0) / steps
    X, Y, b = (net.X.detach().numpy(), net.Y.detach().numpy(), float(net.beta.detach()))
    mm = kdtree_mismatch(X, Y, b, g)
    pairs = np.concatenate([mm.missed, mm.spurious])
    i, j = torch.as_tensor(pairs[:, 0]), torch.as_tensor(pairs[:, 1])
    sign = torch.cat([torch.ones(len(mm.missed)), -torch.ones(len(mm.spurious))]).double()
    t0 = time.perf_counter()
    for _ in range(steps):
        opt.zero_grad()
        torch.relu(-sign * net.pair_logits(i, j)).sum().backward()
        opt.step()
    return t_dense, (time.perf_counter() - t0) / steps, len(pairs)


def main() -> None:
    torch.set_num_threads(1)
    budget = float(sys.argv[sys.argv.index("--budget") + 1]) if "--budget" in sys.argv else 600.0
    sizes = (
        [int(s) for s in sys.argv[sys.argv.index("--sizes") + 1].split(",")]
        if "--sizes" in sys.argv
        else [2_000, 5_000, 10_000, 20_000, 50_000, 100_000]
    )
    print("one training step, L2 hinge, D = 4, random start: full batch (N² dyads) vs active set")
    for n in (2_000, 5_000):
        td, ta, k = step_times(n)
        print(
            f"  N = {n:>6}: full batch {1e3 * td:8.1f} ms, active set ({k} dyads) {1e3 * ta:7.2f} ms, "
            f"ratio {td / ta:6.1f}"
        )
    print(f"exact-dimension search, planted RGG d = 2, degree 10, D in [1, 8], budget {budget:.0f} s")
    head = f"{'N':>8} {'trainer':>8} {'D*':>4} {'fits':>5} {'iterations':>11} {'trace (D:exact)':>34}"
    print(f"{head} {'wall s':>8}")
    for n in sizes:
        g, _ = planted_rgg(n, 2, seed=0, degree=10)
        t0 = time.perf_counter()
        res = find_eed(g, d_min=1, d_max=8, trainer="active", warmup_steps=200, max_iter=3000, seed=0)
        wall = time.perf_counter() - t0
        trace = " ".join(f"{f.dim}:{'y' if f.exact else 'n'}" for f in res.trace)
        its = sum(f.epochs for f in res.trace)
        print(
            f"{n:>8} {'active':>8} {res.eed!s:>4} {len(res.trace):>5} {its:>11} {trace:>34} {wall:>8.1f}",
            flush=True,
        )
        if wall > budget / 2:
            print(f"stopping: the search at N = {n} took {wall:.0f} s, more than half the budget")
            break


if __name__ == "__main__":
    main()
