"""Where a training step's time goes, and its CPU seconds (issue 40).

    python benchmarks/bench_step.py [--scale 0.1] [--batch 128] [--T 110] [--reps 3] [--profile] [--compile]

Sequential (official) order, float32, one torch thread. For dense masked and CSR synapses: a full
training step (forward, backward, Adam) and a no-grad forward; and the forward's parts timed alone over
T steps at the same batch: the recurrent product (COO, the previous implementation; CSR; dense), the
ALIF update of the cortex, and the thalamic stage. The forward minus its parts is the Python time loop
and the sequential order's per-population work. Interleaved repetitions, medians of process CPU seconds.

``--profile``: one dense training step under ``torch.profiler`` (after a warm-up step): CPU seconds of
the forward, the backward and Adam (``record_function`` ranges), the number of autograd ops recorded, and
the ten ops with the most self CPU time. ``--compile``: ``torch.compile`` of the ALIF update: whether its
outputs equal the eager ones bit for bit (float32, the step's shapes) and its CPU time over T steps.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import torch
from barrel_snn.models import BarrelSNN, loss_fn
from barrel_snn.neurons import alif_step


def _cpu(f: Callable[[], object]) -> float:
    c0 = time.process_time()
    f()
    return time.process_time() - c0


def profile_step(model: BarrelSNN, opt: torch.optim.Optimizer, xf: torch.Tensor, xt: torch.Tensor,
                 y: torch.Tensor, T: int) -> None:  # fmt: skip
    from torch.profiler import ProfilerActivity, profile, record_function

    def step() -> None:
        opt.zero_grad()
        with record_function("forward"):
            out, _ = model(xf, xt)
            loss = loss_fn(out, y, T)
        with record_function("backward"):
            loss.backward()
        with record_function("adam"):
            opt.step()

    step()  # warm-up
    c0 = time.process_time()
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        step()
    total = time.process_time() - c0
    ev = prof.key_averages()
    ranges = {e.key: e.cpu_time_total / 1e6 for e in ev if e.key in ("forward", "backward", "adam")}
    n_ops = sum(e.count for e in ev if e.key not in ranges)
    print(f"profiled step: {total:.2f} CPU s under the profiler; ranges (CPU s): "
          + ", ".join(f"{k} {v:.2f}" for k, v in ranges.items()) + f"; {n_ops} op calls")  # fmt: skip
    print(ev.table(sort_by="self_cpu_time_total", row_limit=10))


def try_compile(n: int, B: int, T: int, g: torch.Generator) -> None:
    cur, u = torch.rand(B, n, generator=g), torch.rand(B, n, generator=g)
    s, b = (torch.rand(B, n, generator=g) < 0.05).float(), torch.full((B, n), 0.04)
    alpha, rho = torch.rand(n, generator=g) * 0.5 + 0.5, torch.rand(n, generator=g) * 0.5 + 0.4
    c0 = time.process_time()
    fast = torch.compile(alif_step, dynamic=False)
    got = fast(cur, u, s, b, alpha, rho, 0.04)
    first = time.process_time() - c0
    ref = alif_step(cur, u, s, b, alpha, rho, 0.04)
    same = all(torch.equal(x, y) for x, y in zip(got, ref, strict=True))
    diff = max(float((x - y).abs().max()) for x, y in zip(got, ref, strict=True))
    times = {}
    for name, f in (("eager", alif_step), ("compiled", fast)):
        c0 = time.process_time()
        with torch.no_grad():
            for _ in range(T):
                f(cur, u, s, b, alpha, rho, 0.04)
        times[name] = time.process_time() - c0
    print(
        f"torch.compile(alif_step): first call {first:.1f} CPU s; bit-identical {same} (max |diff| "
        f"{diff:.2e}); x {T} steps eager {times['eager']:.3f} vs compiled {times['compiled']:.3f} CPU s"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=float, default=0.1)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--T", type=int, default=110)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--compile", action="store_true")
    ap.add_argument("--parts", action=argparse.BooleanOptionalAction, default=True)
    a = ap.parse_args()
    torch.set_num_threads(1)
    g = torch.Generator().manual_seed(0)
    B, T = a.batch, a.T
    xf = (torch.rand(B, T, 93, generator=g) < 0.1).float()
    xt = (torch.rand(B, T, 93, generator=g) < 0.1).float()
    y = torch.arange(B) % 3
    models = {sp: BarrelSNN(scale=a.scale, sparse=sp, seed=0) for sp in (False, True)}
    opts = {sp: torch.optim.Adam(m.parameters(), lr=1e-3) for sp, m in models.items()}
    m = models[True]
    n = m.n
    vals = (m.w_rec * m.rec_coef).detach()
    coo = torch.sparse_coo_tensor(m.rec_index, vals, (n, n), is_coalesced=True)
    csr = coo.to_sparse_csr()
    dense = coo.to_dense()
    s = (torch.rand(B, n, generator=g) < 0.05).float()
    u, b = torch.rand(B, n, generator=g), torch.full((B, n), 0.04)
    alpha, rho = torch.full((n,), 0.9), torch.full((n,), 0.8)

    def step(sp: bool) -> None:
        opts[sp].zero_grad()
        out, _ = models[sp](xf, xt)
        loss_fn(out, y, T).backward()
        opts[sp].step()

    def fwd(sp: bool) -> None:
        with torch.no_grad():
            models[sp](xf, xt)

    def loop(f: Callable[[], object]) -> Callable[[], None]:
        def run() -> None:
            with torch.no_grad():
                for _ in range(T):
                    f()

        return run

    parts = {
        "train step, dense": lambda: step(False),
        "train step, CSR": lambda: step(True),
        "forward (no grad), dense": lambda: fwd(False),
        "forward (no grad), CSR": lambda: fwd(True),
        "  recurrent product x T, COO (before)": loop(lambda: torch.sparse.mm(coo, s.T).T),
        "  recurrent product x T, CSR": loop(lambda: (csr @ s.T).T),
        "  recurrent product x T, dense": loop(lambda: s @ dense.T),
        "  cortical ALIF update x T": loop(lambda: alif_step(u, u, s, b, alpha, rho, 0.04)),
    }
    if a.profile:
        profile_step(models[False], opts[False], xf, xt, y, T)
    if a.compile:
        try_compile(n, B, T, g)
    if not a.parts:
        return
    res: dict[str, list[float]] = {k: [] for k in parts}
    for _ in range(a.reps):
        for k, f in parts.items():
            res[k].append(_cpu(f))
    print(f"scale {a.scale:g} ({n} neurons, {len(vals)} synapses), batch {B}, T = {T}; CPU s, median")
    print("| part | CPU s |")
    print("|---|---|")
    for k, v in res.items():
        print(f"| {k} | {statistics.median(v):.3f} |", flush=True)


if __name__ == "__main__":
    main()
