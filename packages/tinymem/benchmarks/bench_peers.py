"""Benchmark tinymem's building blocks against their named peers, printing ratios (single thread).

- Spectral-norm regularizer vs ``torch.nn.utils.parametrizations.spectral_norm`` (the peer the spec names)
  and ``torch.linalg.svdvals`` (exact): agreement of σ_max and time per evaluation.
- The supermask (``get_subnet`` + masked Conv1D) vs a line-by-line re-implementation of the official
  ``GetSubnet``/``SupermaskConv`` (a full sort of the scores, as in the hidden-networks edge-popup code):
  identical masks, time per forward+backward.
(BalancedSubnet vs clean fine-tuning wall-clock is measured inside ``tinymem reproduce``, claim 5.)

Run: ``python benchmarks/bench_peers.py``.
"""

from __future__ import annotations

import time

import torch
from tinymem import get_subnet, spectral_norm
from transformers.pytorch_utils import Conv1D


def _time(fn, reps: int = 50) -> float:
    fn()
    t0 = time.perf_counter()
    for _ in range(reps):
        fn()
    return (time.perf_counter() - t0) / reps


class OfficialGetSubnet(torch.autograd.Function):
    """The official ``GetSubnet`` (random_subnet.py), transcribed: sort, zero the first j, one the rest."""

    @staticmethod
    def forward(ctx, scores, k):
        out = scores.clone()
        _, idx = scores.flatten().sort()
        j = int(k * scores.numel())
        flat_out = out.flatten()
        flat_out[idx[:j]] = 0
        flat_out[idx[j:]] = 1
        return flat_out.view_as(scores)

    @staticmethod
    def backward(ctx, g):
        return g, None


def main() -> None:
    torch.set_num_threads(1)
    g = torch.Generator().manual_seed(0)
    print("== spectral norm of a 64x256 matrix ==")
    w = torch.randn(64, 256, generator=g)
    exact = float(torch.linalg.svdvals(w)[0])
    ours = float(spectral_norm(w, n_iter=20, generator=torch.Generator().manual_seed(0)))
    lin = torch.nn.Linear(256, 64, bias=False)
    with torch.no_grad():
        lin.weight.copy_(w)
    peer = torch.nn.utils.parametrizations.spectral_norm(lin, n_power_iterations=20)
    peer.train()
    with torch.no_grad():
        for _ in range(3):
            _ = peer.weight
    with torch.no_grad():
        peer_sigma = float(torch.linalg.norm(w) / torch.linalg.norm(peer.weight))
    t_ours = _time(lambda: spectral_norm(w, n_iter=20))
    t_peer = _time(lambda: peer.weight)
    t_svd = _time(lambda: torch.linalg.svdvals(w))
    print(
        f"sigma exact {exact:.5f}  ours {ours:.5f} (rel err {abs(ours - exact) / exact:.1e})  "
        f"torch spectral_norm {peer_sigma:.5f} (rel err {abs(peer_sigma - exact) / exact:.1e})"
    )
    print(
        f"time ours {t_ours * 1e6:.0f} us, torch spectral_norm {t_peer * 1e6:.0f} us, "
        f"svdvals {t_svd * 1e6:.0f} us; "
        f"ratio ours/peer = {t_ours / t_peer:.2f}, ours/svdvals = {t_ours / t_svd:.2f}"
    )

    print("== supermask forward+backward, Conv1D 64->256, batch 64x40 tokens, ratio 0.01 ==")
    conv = Conv1D(256, 64)
    x = torch.randn(64, 40, 64, generator=g)
    s1 = torch.randn(64, 256, generator=g).abs().requires_grad_(True)
    s2 = s1.detach().clone().requires_grad_(True)
    assert torch.equal(get_subnet(s1, 0.01), OfficialGetSubnet.apply(s2, 0.01))

    def step(fn, s):
        def run() -> None:
            wm = conv.weight.detach() * fn(s, 0.01)
            out = torch.addmm(conv.bias.detach(), x.view(-1, 64), wm)
            out.sum().backward()
            s.grad = None

        return run

    t_ours = _time(step(get_subnet, s1))
    t_peer = _time(step(OfficialGetSubnet.apply, s2))
    print(
        f"time ours {t_ours * 1e3:.2f} ms, official transcription {t_peer * 1e3:.2f} ms; ratio ours/peer = "
        f"{t_ours / t_peer:.2f} (masks identical)"
    )


if __name__ == "__main__":
    main()
