"""HYLA vs softmax attention (ours and torch's fused ``scaled_dot_product_attention``) and linear attention.

Forward + backward of one attention layer, process CPU time per call after a warm-up, repetitions
interleaved across mixers, one torch thread; and the size of the largest intermediate each mixer
materialises (HYLA: the (B, Q, K, d_v/H) hidden layer of the generated networks; softmax: the
(B, H, Q, K) scores). Run: ``uv run --package iclr25-attention-hypernet python benchmarks/bench_hyla.py``.
"""

from __future__ import annotations

import time

import torch
from attention_hypernet.attention import HyperAttention
from paperkit import torch_threads

B, D, H, DV, REPS = 8, 64, 8, 64, 3


def sdpa_layer(att: HyperAttention):
    def f(x: torch.Tensor) -> torch.Tensor:
        q, k, v = (
            lin(x).reshape(B, -1, H, DV // H).transpose(1, 2) for lin in (att.query, att.key, att.value)
        )
        return att.out(torch.nn.functional.scaled_dot_product_attention(q, k, v).transpose(1, 2).flatten(-2))

    return f


def main() -> None:
    gen = torch.Generator().manual_seed(0)
    layers = {
        "softmax (ours)": HyperAttention(D, H, DV, DV, norm="softmax", generator=gen),
        "hyla": HyperAttention(D, H, DV, DV, norm="rms_head", value_net="relu_mlp", generator=gen),
        "linear (quadratic form)": HyperAttention(D, H, DV, DV, norm="none", generator=gen),
    }
    fns = {name: layer for name, layer in layers.items()}
    fns["softmax (torch sdpa)"] = sdpa_layer(layers["softmax (ours)"])
    print(f"B={B}, d_model={D}, H={H}, d_v={DV}; CPU ms per forward+backward (min of {REPS}), 1 thread")
    print(f"{'T':>5} " + " ".join(f"{n:>24}" for n in fns) + f" {'hyla/sdpa':>10} {'hyla/ours':>10}")
    for T in (16, 36, 128, 512):
        x = torch.randn(B, T, D, generator=gen, requires_grad=True)
        best = {n: float("inf") for n in fns}
        for rep in range(REPS + 1):  # the first round is the warm-up
            for n, f in fns.items():
                t = time.process_time()
                f(x).sum().backward()
                dt = time.process_time() - t
                if rep:
                    best[n] = min(best[n], dt)
        ms = {n: 1000 * v for n, v in best.items()}
        print(
            f"{T:>5} "
            + " ".join(f"{ms[n]:>24.2f}" for n in fns)
            + f" {ms['hyla'] / ms['softmax (torch sdpa)']:>10.2f} {ms['hyla'] / ms['softmax (ours)']:>10.2f}"
        )
        mb_h, mb_s = B * T * T * (DV // H) * 4 / 2**20, B * H * T * T * 4 / 2**20
        print(
            f"      largest intermediate: hyla {mb_h:.2f} MiB (B*T^2*d_v/H), softmax {mb_s:.2f} MiB (B*H*T^2)"
        )


if __name__ == "__main__":
    with torch_threads(1):
        main()
