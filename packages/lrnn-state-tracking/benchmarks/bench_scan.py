"""Tokens per second of the parallel forms vs the sequential recurrences and vs fla's reference kernels,
on CPU, one torch thread, float32, forward pass without gradients.

Peers. flash-linear-attention's fast kernels (Triton) and mamba_ssm's selective scan (CUDA) need a GPU.
On a CPU the peer is fla-core's pure-torch reference kernels for the delta rule,
``fla.ops.delta_rule.naive.delta_rule_recurrence`` (sequential) and ``delta_rule_chunkwise`` (WY, its
chunk must divide T), loaded from their file alone (importing ``fla.ops`` pulls in every Triton module).
fla-core is in this package's ``bench`` and ``test`` groups. The same q, k, v, β go to both.

Also measured: the DeltaNet layer's WY chunk sizes (``--chunks``; the layer's default is the fastest
measured one), the diagonal layer's associative scan against its loop, and the eigenvalue extension's
cost ("pm1" vs "01").

Run: ``python benchmarks/bench_scan.py [--lengths 256 1024 4096] [--chunks 16 32 64] [--repeats 3]``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import platform
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import torch
from lrnn_state_tracking import DeltaNet, DiagonalLRNN
from lrnn_state_tracking.scan import delta_rule_chunked, delta_rule_sequential


def load_fla_naive() -> ModuleType | None:
    """fla-core's ``ops/delta_rule/naive.py`` on its own, or None when fla-core is not installed."""
    spec = importlib.util.find_spec("fla")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "ops" / "delta_rule" / "naive.py"
    mod_spec = importlib.util.spec_from_file_location("fla_delta_rule_naive", path)
    if mod_spec is None or mod_spec.loader is None:
        return None
    module = importlib.util.module_from_spec(mod_spec)
    mod_spec.loader.exec_module(module)
    return module


def cpu_seconds(fn: Callable[[], object], repeats: int) -> float:
    """Best process-CPU time of ``repeats`` calls after one warm-up call."""
    with torch.no_grad():
        fn()
        best = float("inf")
        for _ in range(repeats):
            t = time.process_time()
            fn()
            best = min(best, time.process_time() - t)
    return best


def kernel_rows(t_len: int, chunks: list[int], repeats: int, fla: ModuleType | None) -> dict[str, float]:
    """Delta-rule kernels on the same inputs (batch 1, 4 heads, d_k = d_v = 16): tokens/s."""
    gen = torch.Generator().manual_seed(0)
    q = torch.randn(1, 4, t_len, 16, generator=gen)
    k = torch.nn.functional.normalize(torch.randn(1, 4, t_len, 16, generator=gen), dim=-1)
    v = torch.randn(1, 4, t_len, 16, generator=gen)
    beta = 2 * torch.rand(1, 4, t_len, generator=gen)
    qs = q * 16**-0.5  # fla scales q inside its kernels, ours do not
    row = {"ours_sequential": t_len / cpu_seconds(lambda: delta_rule_sequential(qs, k, v, beta), repeats)}
    for c in chunks:
        row[f"ours_chunk{c}"] = t_len / cpu_seconds(
            lambda c=c: delta_rule_chunked(qs, k, v, beta, chunk=c), repeats
        )
        if fla is not None and t_len % c == 0:
            row[f"fla_chunk{c}"] = t_len / cpu_seconds(
                lambda c=c: fla.delta_rule_chunkwise(q, k, v, beta, chunk_size=c), repeats
            )
    if fla is not None:
        row["fla_sequential"] = t_len / cpu_seconds(lambda: fla.delta_rule_recurrence(q, k, v, beta), repeats)
    return row


def training_step_rows(chunks: list[int], repeats: int) -> dict[str, float]:
    """CPU ms of one forward + backward of the DeltaNet layer at the reproduction's shapes (batch 64,
    T = 40, d_model 16, 4 heads), for each chunk size."""
    out = {}
    x = torch.randn(64, 40, 16, generator=torch.Generator().manual_seed(1))
    for c in chunks:
        torch.manual_seed(0)
        layer = DeltaNet(16, n_heads=4, conv=0, chunk=c)

        def step(layer: DeltaNet = layer) -> None:
            with torch.enable_grad():
                layer(x).square().mean().backward()

        best = float("inf")
        step()
        for _ in range(repeats):
            t = time.process_time()
            step()
            best = min(best, time.process_time() - t)
        out[f"train_step_ms_chunk{c}"] = 1e3 * best
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=[256, 1024, 4096])
    parser.add_argument("--chunks", type=int, nargs="+", default=[16, 32, 64])
    parser.add_argument("--d-model", type=int, default=64)
    parser.add_argument("--d-state", type=int, default=16)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    fla = load_fla_naive()
    print(
        f"CPU {platform.processor() or platform.machine()}, torch {torch.__version__}, 1 thread, float32; "
        f"fla-core reference kernels: {'yes' if fla is not None else 'not installed'}"
    )
    result: dict[str, object] = {"train_step": training_step_rows(args.chunks, args.repeats)}
    print("DeltaNet layer, forward+backward at batch 64, T 40 (CPU ms):", result["train_step"])
    diag = {e: DiagonalLRNN(args.d_model, d_state=args.d_state, eig_range=e) for e in ("01", "pm1")}
    rows = []
    for t in args.lengths:
        x = torch.randn(1, t, args.d_model)
        row: dict[str, float] = {"T": t, **kernel_rows(t, args.chunks, args.repeats, fla)}
        forms = (("diag_parallel", "parallel", "pm1"), ("diag_sequential", "sequential", "pm1"),
                 ("diag_parallel_01", "parallel", "01"))  # fmt: skip
        for name, mode, eig in forms:
            row[name] = t / cpu_seconds(lambda m=mode, e=eig, x=x: diag[e](x, mode=m), args.repeats)
        rows.append(row)
        print(" ".join(f"{k} {v:,.0f}" for k, v in row.items()), flush=True)
    result["kernels"] = rows
    if args.json is not None:
        args.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
