"""The Transformer of the official code (``hyla/models/transformer.py``) with a swappable sequence mixer.

Dense input embedding (no absolute positions) -> ``n_layers`` pre-LN blocks
``[x + mixer(LN(x)); x + MLP(LN(x))]`` with a GELU (tanh approximation, Flax's default) MLP -> final
LayerNorm -> linear read-out. Each block has its own T5 relative-position bias per head, built with
``bidirectional=False`` as in the official code (all future offsets share bucket 0) and
``num_buckets = max_distance = rel_pos_max_dist``. No dropout: the official configs set ``dropout_rate``
to 0 but leave ``attention_dropout_rate`` at its default 0.1 (not implemented here; README, Deviations).
LayerNorm eps is 1e-6 (Flax). Mixers differ only in the attention's normalisation and value network.
"""

from __future__ import annotations

import torch
from paperkit import check_bool, check_choice, check_instance, check_int, check_seed
from torch import nn

from attention_hypernet._checks import check_device, check_dtype, check_tensor
from attention_hypernet.attention import HyperAttention, lecun_normal_, relative_position_bucket

__all__ = ["MIXERS", "RelativePositionBias", "Transformer"]

#: Official ``sequence_mixer`` names -> (norm, value_net); ``hyla`` is ``linear_hypatt``.
MIXERS: dict[str, tuple[str, str]] = {
    "softmax": ("softmax", "linear"),  # softmax_attention
    "linear": ("none", "linear"),  # linear_attention
    "linear_rms_head": ("rms_head", "linear"),  # linear_attention_rms_head
    "hyla": ("rms_head", "relu_mlp"),  # linear_hypatt
    "hyla_no_rms_head": ("none", "relu_mlp"),  # linear_hypatt_no_rms_head
    "hyla_linear_mlp": ("rms_head", "linear_mlp"),  # linear_hypatt_mlp_linear
    "hyla_linear_mlp_no_rms_head": ("none", "linear_mlp"),  # linear_hypatt_mlp_linear_no_rms_head
    "softmax_hypatt": ("softmax", "relu_mlp"),  # softmax_hypatt
}


class RelativePositionBias(nn.Module):
    """T5 relative-position bias ``(1, H, T, T)``; table ~ truncated N(0, 1/num_buckets) (Flax embed init)."""

    def __init__(
        self,
        n_heads: int,
        num_buckets: int,
        max_distance: int,
        *,
        bidirectional: bool = False,
        generator: torch.Generator | None = None,
        device: str | torch.device = "cpu",
        dtype: torch.dtype = torch.float32,
    ) -> None:
        super().__init__()
        check_int(n_heads, "n_heads", low=1)
        check_bool(bidirectional, "bidirectional")
        check_int(num_buckets, "num_buckets", low=4 if bidirectional else 2)
        exact = (num_buckets // 2 if bidirectional else num_buckets) // 2
        check_int(max_distance, "max_distance", low=exact + 1)
        device, dtype = check_device(device), check_dtype(dtype)
        if generator is not None:
            check_instance(generator, "generator", torch.Generator)
        self.num_buckets, self.max_distance, self.bidirectional = num_buckets, max_distance, bidirectional
        self.table = nn.Parameter(torch.empty(n_heads, num_buckets, device=device, dtype=dtype))
        lecun_normal_(self.table, num_buckets, generator)

    def forward(self, T: int) -> torch.Tensor:
        T = check_int(T, "T", low=1)
        pos = torch.arange(T, device=self.table.device)
        bucket = relative_position_bucket(
            pos[None, :] - pos[:, None],
            bidirectional=self.bidirectional,
            num_buckets=self.num_buckets,
            max_distance=self.max_distance,
        )
        return self.table[:, bucket].unsqueeze(0)


class _Block(nn.Module):
    def __init__(
        self,
        d_model: int,
        n_heads: int,
        d_qk: int,
        d_v: int,
        d_mlp: int,
        mixer: str,
        rel_pos: int | None,
        bidirectional: bool,
        gen: torch.Generator | None,
        dtype: torch.dtype,
    ) -> None:
        super().__init__()
        norm, value_net = MIXERS[mixer]
        # built on the CPU from the model's generator; Transformer moves the whole model afterwards
        self.norm1 = nn.LayerNorm(d_model, eps=1e-6, dtype=dtype)
        self.norm2 = nn.LayerNorm(d_model, eps=1e-6, dtype=dtype)
        self.attn = HyperAttention(
            d_model, n_heads, d_qk, d_v, norm=norm, value_net=value_net, generator=gen, dtype=dtype
        )
        self.rel = (
            RelativePositionBias(
                n_heads, rel_pos, rel_pos, bidirectional=bidirectional, generator=gen, dtype=dtype
            )
            if rel_pos
            else None
        )
        self.fc1, self.fc2 = nn.Linear(d_model, d_mlp, dtype=dtype), nn.Linear(d_mlp, d_model, dtype=dtype)
        for lin in (self.fc1, self.fc2):
            lecun_normal_(lin.weight, lin.in_features, gen)
            nn.init.zeros_(lin.bias)

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None) -> tuple[torch.Tensor, torch.Tensor]:
        bias = self.rel(x.shape[1]) if self.rel is not None else None
        y, a = self.attn(self.norm1(x), mask=mask, bias=bias, return_scores=True)
        x = x + y
        return x + self.fc2(nn.functional.gelu(self.fc1(self.norm2(x)), approximate="tanh")), a


class Transformer(nn.Module):
    """Sequence model ``x (B, T, in_dim) -> (B, T, out_dim)``.

    Args:
        in_dim, out_dim: token input width and read-out width.
        d_model, n_layers, n_heads, d_qk, d_v, d_mlp: widths (official logic config: 128, 2, 8, 16, 16, 256;
            sraven: 128, 4, 16, 64, 64, 256).
        mixer: a key of :data:`MIXERS`.
        causal: add a causal mask (the official logic and sraven configs are not causal).
        rel_pos_max_dist: buckets of the relative-position bias (``None`` or 0: no bias).
        bidirectional: T5 buckets for both directions (official: False).
        seed, device, dtype: initialisation; the same seed gives every mixer the same embedding, MLPs and
            read-out draws in the same order.
    """

    def __init__(
        self,
        in_dim: int,
        out_dim: int,
        *,
        d_model: int = 128,
        n_layers: int = 2,
        n_heads: int = 8,
        d_qk: int = 16,
        d_v: int = 16,
        d_mlp: int = 256,
        mixer: str = "hyla",
        causal: bool = False,
        rel_pos_max_dist: int | None = 128,
        bidirectional: bool = False,
        seed: int = 0,
        device: str | torch.device = "cpu",
        dtype: torch.dtype = torch.float32,
    ) -> None:
        super().__init__()
        for name, v in (
            ("in_dim", in_dim),
            ("out_dim", out_dim),
            ("d_model", d_model),
            ("n_layers", n_layers),
            ("d_mlp", d_mlp),
        ):
            check_int(v, name, low=1)
        self.mixer = check_choice(mixer, "mixer", MIXERS)
        self.causal = check_bool(causal, "causal")
        if rel_pos_max_dist is not None:
            check_int(rel_pos_max_dist, "rel_pos_max_dist", low=0)
            if rel_pos_max_dist == 1:
                raise ValueError("rel_pos_max_dist must be 0 (no bias) or >= 2, got 1")
        check_bool(bidirectional, "bidirectional")
        seed, device, dtype = check_seed(seed), check_device(device), check_dtype(dtype)
        # Drawn on the CPU from one generator, then moved: one seed gives the same model on every device,
        # and every mixer gets the same draws in the same order (the mixers' parameters have equal shapes).
        gen = torch.Generator(device="cpu").manual_seed(int(seed))
        # nn.Linear's own init draws from the global RNG before we overwrite it: leave that state alone
        with torch.random.fork_rng(devices=[]):
            self.embed, self.readout = (
                nn.Linear(in_dim, d_model, dtype=dtype),
                nn.Linear(d_model, out_dim, dtype=dtype),
            )
            for lin in (self.embed, self.readout):
                lecun_normal_(lin.weight, lin.in_features, gen)
                nn.init.zeros_(lin.bias)
            self.blocks = nn.ModuleList(
                _Block(d_model, n_heads, d_qk, d_v, d_mlp, mixer, rel_pos_max_dist, bidirectional, gen, dtype)
                for _ in range(n_layers)
            )
            self.final_norm = nn.LayerNorm(d_model, eps=1e-6, dtype=dtype)
        self.to(device)

    def forward(
        self, x: torch.Tensor, mask: torch.Tensor | None = None, return_scores: bool = False
    ) -> torch.Tensor | tuple[torch.Tensor, list[torch.Tensor]]:
        """Logits ``(B, T, out_dim)``; with ``return_scores`` also every layer's code ``(B, H, T, T)``."""
        check_tensor(x, "x", shape=("B", "T", self.embed.in_features))
        check_bool(return_scores, "return_scores")
        if x.shape[0] == 0 or x.shape[1] == 0:
            raise ValueError(f"x must have at least one sequence and one token, got shape {tuple(x.shape)}")
        w = self.embed.weight
        if x.dtype != w.dtype or x.device != w.device:
            raise TypeError(f"x must be {w.dtype} on {w.device} like the model, got {x.dtype} on {x.device}")
        if mask is not None:
            check_tensor(mask, "mask", shape=(None, None, x.shape[1], x.shape[1]), kind="b")
        if self.causal:
            T = x.shape[1]
            causal = torch.ones(T, T, dtype=torch.bool, device=x.device).tril()[None, None]
            mask = causal if mask is None else mask & causal
        h, scores = self.embed(x), []
        for block in self.blocks:
            h, a = block(h, mask)
            scores.append(a)
        out = self.readout(self.final_norm(h))
        return (out, scores) if return_scores else out
