"""Tokens per second of the parallel forms vs the sequential recurrences, on CPU, for T = 256 … 8192.

The spec names flash-linear-attention (fla: Triton DeltaNet / GLA kernels) and mamba_ssm (CUDA selective
scan) as the peers. Both need a CUDA GPU (Triton / CUDA kernels; fla's CPU fallback is the same naive
PyTorch recurrence as ours), and no GPU is lent to this package's task, so they are not run and not
dependencies: this benchmark reports our own CPU figures — the associative scan against the
sequential loop for the diagonal (Mamba) layer, the chunkwise WY form against the sequential delta rule
for DeltaNet — and checks that the eigenvalue extension ("pm1") costs the same as "01".

Run: ``python benchmarks/bench_scan.py [--lengths 256 1024 4096 8192] [--d-model 64] [--batch 1]``.
One torch thread, float32, forward pass without gradients, best of ``--repeats`` timings.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

import torch
from lrnn_state_tracking import DeltaNet, DiagonalLRNN


def _tokens_per_s(fn, x: torch.Tensor, repeats: int) -> float:
    best = float("inf")
    with torch.no_grad():
        fn(x[:, :16])  # warm-up (allocator, first-call costs)
        for _ in range(repeats):
            t = time.perf_counter()
            fn(x)
            best = min(best, time.perf_counter() - t)
    return x.shape[0] * x.shape[1] / best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=[256, 1024, 4096, 8192])
    parser.add_argument("--d-model", type=int, default=64)
    parser.add_argument("--d-state", type=int, default=16)
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    diag = {e: DiagonalLRNN(args.d_model, d_state=args.d_state, eig_range=e) for e in ("01", "pm1")}
    delta = {e: DeltaNet(args.d_model, n_heads=4, eig_range=e, chunk=64) for e in ("01", "pm1")}
    print(
        f"CPU {platform.processor() or platform.machine()}, torch {torch.__version__}, 1 thread; "
        f"d_model {args.d_model}, d_state {args.d_state}, batch {args.batch}; tokens/s (forward, float32)"
    )
    print("flash-linear-attention / mamba_ssm: not run (they need a CUDA GPU; none is lent to this task)")
    header = (
        f"{'T':>6} | {'diag scan':>10} {'diag seq':>10} {'ratio':>6} | {'DN chunk':>10} {'DN seq':>10} "
        f"{'ratio':>6} | {'diag t pm1/01':>13} {'DN t pm1/01':>11}"
    )
    print(header)
    rows = []
    for t in args.lengths:
        x = torch.randn(args.batch, t, args.d_model)
        r = {
            "T": t,
            "diag_parallel": _tokens_per_s(lambda u: diag["pm1"](u, mode="parallel"), x, args.repeats),
            "diag_sequential": _tokens_per_s(lambda u: diag["pm1"](u, mode="sequential"), x, args.repeats),
            "diag_parallel_01": _tokens_per_s(lambda u: diag["01"](u, mode="parallel"), x, args.repeats),
            "deltanet_chunked": _tokens_per_s(lambda u: delta["pm1"](u, mode="parallel"), x, args.repeats),
            "deltanet_sequential": _tokens_per_s(
                lambda u: delta["pm1"](u, mode="sequential"), x, args.repeats
            ),
            "deltanet_chunked_01": _tokens_per_s(lambda u: delta["01"](u, mode="parallel"), x, args.repeats),
        }
        rows.append(r)
        print(
            f"{t:>6} | {r['diag_parallel']:>10.0f} {r['diag_sequential']:>10.0f} "
            f"{r['diag_parallel'] / r['diag_sequential']:>6.2f} | {r['deltanet_chunked']:>10.0f} "
            f"{r['deltanet_sequential']:>10.0f} {r['deltanet_chunked'] / r['deltanet_sequential']:>6.2f} | "
            f"{r['diag_parallel_01'] / r['diag_parallel']:>13.2f} "
            f"{r['deltanet_chunked_01'] / r['deltanet_chunked']:>11.2f}",
            flush=True,
        )
    if args.json is not None:
        args.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
