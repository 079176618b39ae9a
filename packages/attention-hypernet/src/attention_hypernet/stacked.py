"""Many small Transformers trained as one: parameters stacked over a leading model axis (throughput).

The models of one comparison are tiny (a few 10^4 parameters, 16 tokens), so a training step of one
model is dominated by per-operation overhead, not arithmetic. :class:`StackedTransformer` holds the
parameters of ``M`` :class:`~attention_hypernet.transformer.Transformer` s of equal shapes as tensors with
a leading axis ``M`` and runs all of them in each operation (batched matmuls); models may differ in
their mixer (score normalisation and value network): the attention kernel runs once per contiguous run of
equal mixers. The math is that of ``Transformer.forward`` model by model (tests: the stacked forward and a
few stacked training steps equal the single models' to float rounding). Gradients of the summed losses
are each model's own gradients (the models share no parameter), and AdamW is elementwise, so stacked
training is M independent trainings.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from paperkit import check_instance
from torch import nn

from attention_hypernet._checks import check_tensor
from attention_hypernet.attention import HyperAttention, attention_kernel, relative_position_bucket
from attention_hypernet.transformer import MIXERS, RelativePositionBias, Transformer

__all__ = ["StackedTransformer"]


def _linear(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``x (M, B, T, i)``, ``w (M, o, i)``, ``b (M, o)`` -> ``(M, B, T, o)``: one batched matmul."""
    M, B, T, i = x.shape
    return torch.baddbmm(b.unsqueeze(1), x.reshape(M, B * T, i), w.transpose(1, 2)).reshape(M, B, T, -1)


def _layer_norm(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    y = nn.functional.layer_norm(x, x.shape[-1:], eps=1e-6)  # Flax / Transformer: eps 1e-6
    return y * w[:, None, None] + b[:, None, None]


class StackedTransformer(nn.Module):
    """``M`` Transformers of equal shapes as one module; ``forward(x (M, B, T, in)) -> (M, B, T, out)``.

    Built from the models themselves (their parameters are copied, so initialisation is theirs); after
    training, :meth:`unstack_into` writes the parameters back. ``parameters()`` follows the order of
    ``models[0].named_parameters()``, so ``training.decay_mask(models[0])`` applies.
    """

    def __init__(self, models: Sequence[Transformer]) -> None:
        super().__init__()
        if not isinstance(models, Sequence) or len(models) == 0:
            raise ValueError(f"models must be a non-empty sequence of Transformer, got {models!r}")
        for i, m in enumerate(models):
            check_instance(m, f"models[{i}]", Transformer)
        ref = models[0]
        shapes = [(n, p.shape, p.dtype, p.device) for n, p in ref.named_parameters()]
        for i, m in enumerate(models):
            if [(n, p.shape, p.dtype, p.device) for n, p in m.named_parameters()] != shapes:
                raise ValueError(
                    f"models[{i}] has other parameter names, shapes, dtype or device than models[0]"
                )
            if m.causal:
                raise ValueError(f"models[{i}] is causal: the stacked forward has no mask")
        attn, rel = ref.blocks[0].attn, ref.blocks[0].rel
        assert isinstance(attn, HyperAttention) and (rel is None or isinstance(rel, RelativePositionBias))
        self.n_layers, self.n_heads, self.eps = len(ref.blocks), attn.n_heads, attn.eps
        self.mixers = tuple(m.mixer for m in models)
        self.rel: tuple[int, int, bool] | None = (
            None if rel is None else (rel.num_buckets, rel.max_distance, rel.bidirectional)
        )
        self.names = [n for n, _ in ref.named_parameters()]
        params = [dict(m.named_parameters()) for m in models]
        self.flat = nn.ParameterList(  # torch.stack copies: the models' own tensors stay untouched
            nn.Parameter(torch.stack([p[n].detach() for p in params])) for n in self.names
        )
        # contiguous runs of models with one mixer: (start, stop, norm, value_net)
        self.groups: list[tuple[int, int, str, str]] = []
        for i, mixer in enumerate(self.mixers):
            if self.groups and self.mixers[self.groups[-1][0]] == mixer:
                self.groups[-1] = (self.groups[-1][0], i + 1, *MIXERS[mixer])
            else:
                self.groups.append((i, i + 1, *MIXERS[mixer]))

    def _bucket(self, T: int, device: torch.device) -> torch.Tensor | None:
        if self.rel is None:
            return None
        pos = torch.arange(T, device=device)
        nb, md, bi = self.rel
        return relative_position_bucket(
            pos[None, :] - pos[:, None], bidirectional=bi, num_buckets=nb, max_distance=md
        )

    def _attention(
        self, u: torch.Tensor, p: dict[str, torch.Tensor], pre: str, bucket: torch.Tensor | None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        M, B, T, _ = u.shape
        H = self.n_heads
        q, k, v = (
            _linear(u, p[f"{pre}attn.{n}.weight"], p[f"{pre}attn.{n}.bias"]).reshape(M, B, T, H, -1)
            for n in ("query", "key", "value")
        )
        s = torch.einsum("mbqhd,mbkhd->mbhqk", q / math.sqrt(q.shape[-1]), k)
        if bucket is not None:
            s = s + p[f"{pre}rel.table"][:, :, bucket].unsqueeze(1)  # (M, 1, H, T, T)
        mixed, codes = [], []
        sizes = [stop - start for start, stop, _, _ in self.groups]
        # split, not slices: a slice's backward writes a full-size zero gradient per group
        for n, s_g, v_g, (_, _, norm, value_net) in zip(
            sizes, s.split(sizes), v.split(sizes), self.groups, strict=True
        ):
            y, a = attention_kernel(
                s_g.reshape(n * B, H, T, T),
                v_g.reshape(n * B, T, H, -1),
                norm=norm,
                value_net=value_net,
                eps=self.eps,
            )
            mixed.append(y.reshape(n, B, T, -1))
            codes.append(a.reshape(n, B, H, T, T))
        y = torch.cat(mixed) if len(mixed) > 1 else mixed[0]
        a = torch.cat(codes) if len(codes) > 1 else codes[0]
        return _linear(y, p[f"{pre}attn.out.weight"], p[f"{pre}attn.out.bias"]), a

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``x (M, B, T, in)`` -> outputs ``(M, B, T, out)`` of the M models, model i on ``x[i]``."""
        M = len(self.mixers)
        check_tensor(x, "x", shape=(M, "B", "T", self.flat[0].shape[-1]))
        if x.dtype != self.flat[0].dtype or x.device != self.flat[0].device:
            raise TypeError(
                f"x must be {self.flat[0].dtype} on {self.flat[0].device}, got {x.dtype} on {x.device}"
            )
        p = dict(zip(self.names, self.flat, strict=True))
        bucket = self._bucket(x.shape[2], x.device)
        h = _linear(x, p["embed.weight"], p["embed.bias"])
        for layer in range(self.n_layers):
            pre = f"blocks.{layer}."
            y, _ = self._attention(
                _layer_norm(h, p[pre + "norm1.weight"], p[pre + "norm1.bias"]), p, pre, bucket
            )
            h = h + y
            u = _layer_norm(h, p[pre + "norm2.weight"], p[pre + "norm2.bias"])
            u = nn.functional.gelu(_linear(u, p[pre + "fc1.weight"], p[pre + "fc1.bias"]), approximate="tanh")
            h = h + _linear(u, p[pre + "fc2.weight"], p[pre + "fc2.bias"])
        h = _layer_norm(h, p["final_norm.weight"], p["final_norm.bias"])
        return _linear(h, p["readout.weight"], p["readout.bias"])

    @torch.no_grad()
    def unstack_into(self, models: Sequence[Transformer]) -> None:
        """Copy model i's parameters into ``models[i]`` (the models it was built from, or equal ones)."""
        if not isinstance(models, Sequence) or len(models) != len(self.mixers):
            raise ValueError(f"models must be a sequence of {len(self.mixers)} Transformer, got {models!r}")
        for i, m in enumerate(models):
            check_instance(m, f"models[{i}]", Transformer)
            params = dict(m.named_parameters())
            for n, w in zip(self.names, self.flat, strict=True):
                params[n].copy_(w[i])
