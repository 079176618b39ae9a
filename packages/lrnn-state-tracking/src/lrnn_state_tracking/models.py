"""A token classifier around one mixer type: the LRNNs, and the LSTM / tiny Transformer baselines.

tokens (B, T) int64 → embedding → n_layers × [x + mixer(LN(x)); x + MLP(LN(x))] → LN → linear head
→ logits (B, T, n_classes). Causal everywhere, so trailing padding never changes an earlier position.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from paperkit.validation import check_choice, check_int
from torch import nn

from lrnn_state_tracking.layers import DeltaNet, DiagonalLRNN, GHProductRNN

__all__ = ["LAYERS", "LRNNLM"]

LAYERS = ("diag", "deltanet", "ghproduct", "lstm", "transformer")


class _LSTMMixer(nn.Module):
    def __init__(self, d_model: int) -> None:
        super().__init__()
        self.lstm = nn.LSTM(d_model, d_model, batch_first=True)

    def forward(self, x: torch.Tensor, mode: str = "parallel") -> torch.Tensor:
        return self.lstm(x)[0]


class _AttentionMixer(nn.Module):
    """Causal multi-head self-attention (positions are added to the embedding by :class:`LRNNLM`)."""

    def __init__(self, d_model: int, n_heads: int) -> None:
        super().__init__()
        self.attn = nn.MultiheadAttention(d_model, n_heads, batch_first=True)

    def forward(self, x: torch.Tensor, mode: str = "parallel") -> torch.Tensor:
        t = x.shape[1]
        mask = torch.ones(t, t, dtype=torch.bool, device=x.device).triu(1)
        return self.attn(x, x, x, attn_mask=mask, need_weights=False)[0]


class LRNNLM(nn.Module):
    """Sequence classifier with one kind of mixer.

    Args:
        vocab: token ids are 0..vocab−1 (0 is padding in every task here).
        n_classes: size of the output head.
        d_model, n_layers: width and depth.
        layer: ``"diag"`` (Mamba), ``"deltanet"``, ``"ghproduct"`` (DeltaProduct), ``"lstm"`` or
            ``"transformer"`` (causal, learned positions up to ``context_length``).
        eig_range: ``"01"`` / ``"pm1"`` / ``(lo, 1.0)`` for the LRNN layers (ignored by the baselines).
        n_heads, d_state, conv, n_householder: layer options (see :mod:`lrnn_state_tracking.layers`).
        mlp: add a 2×-wide GELU MLP after each mixer (default off, as the official Mamba stack).
        context_length: longest sequence accepted (the paper's 256).
    """

    def __init__(
        self,
        vocab: int,
        n_classes: int,
        d_model: int = 64,
        n_layers: int = 2,
        layer: str = "diag",
        eig_range: str | tuple[float, float] = "pm1",
        *,
        n_heads: int = 4,
        d_state: int = 16,
        conv: int = 4,
        n_householder: int = 2,
        mlp: bool = False,
        context_length: int = 256,
    ) -> None:
        super().__init__()
        check_choice(layer, "layer", LAYERS)
        for name, val in (("vocab", vocab), ("n_classes", n_classes), ("d_model", d_model)):
            check_int(val, name, low=1)
        self.vocab, self.n_classes, self.layer, self.context_length = vocab, n_classes, layer, context_length
        self.embed = nn.Embedding(vocab, d_model)
        self.pos = nn.Embedding(context_length, d_model) if layer == "transformer" else None

        def mixer() -> nn.Module:
            if layer == "diag":
                return DiagonalLRNN(d_model, d_state=d_state, conv=conv, eig_range=eig_range)
            if layer == "deltanet":
                return DeltaNet(d_model, n_heads=n_heads, conv=conv, eig_range=eig_range)
            if layer == "ghproduct":
                return GHProductRNN(
                    d_model, n_heads=n_heads, n_householder=n_householder, conv=conv, eig_range=eig_range
                )
            if layer == "lstm":
                return _LSTMMixer(d_model)
            return _AttentionMixer(d_model, n_heads)

        self.mixers = nn.ModuleList(mixer() for _ in range(n_layers))
        self.norms1 = nn.ModuleList(nn.LayerNorm(d_model) for _ in range(n_layers))
        self.mlps = nn.ModuleList(
            nn.Sequential(
                nn.LayerNorm(d_model),
                nn.Linear(d_model, 2 * d_model),
                nn.GELU(),
                nn.Linear(2 * d_model, d_model),
            )
            if mlp
            else nn.Identity()
            for _ in range(n_layers)
        )
        self.mlp = mlp
        self.norm_f = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, n_classes)

    def check_tokens(self, tokens: torch.Tensor) -> None:
        """Raise on bad input: non-integer, not (B, T), T = 0, T > context_length, ids out of vocabulary."""
        if not isinstance(tokens, torch.Tensor) or tokens.dtype not in (torch.int64, torch.int32):
            raise TypeError("tokens must be an int64/int32 torch.Tensor of shape (batch, T)")
        if tokens.ndim != 2 or tokens.shape[0] == 0:
            raise ValueError(f"tokens must have shape (batch >= 1, T), got {tuple(tokens.shape)}")
        if tokens.shape[1] == 0:
            raise ValueError("sequence length must be >= 1, got 0")
        if tokens.shape[1] > self.context_length:
            raise ValueError(
                f"sequence length {tokens.shape[1]} exceeds context_length {self.context_length}"
            )
        lo, hi = int(tokens.min()), int(tokens.max())
        if lo < 0 or hi >= self.vocab:
            raise ValueError(f"token ids must be in [0, {self.vocab - 1}], got values in [{lo}, {hi}]")

    def forward(self, tokens: torch.Tensor, mode: str = "parallel") -> torch.Tensor:
        """tokens ``(B, T)`` → logits ``(B, T, n_classes)``. ``mode``: ``"parallel"`` (scan / chunked WY)
        or ``"sequential"`` (the reference recurrences) for the LRNN layers."""
        self.check_tokens(tokens)
        x = self.embed(tokens)
        if self.pos is not None:
            x = x + self.pos(torch.arange(tokens.shape[1], device=tokens.device))
        for mix, n1, ff in zip(self.mixers, self.norms1, self.mlps, strict=True):
            x = x + mix(n1(x), mode=mode)
            if self.mlp:
                x = x + ff(x)
        return self.head(self.norm_f(x))

    def loss(
        self, tokens: torch.Tensor, targets: torch.Tensor, mask: torch.Tensor, mode: str = "parallel"
    ) -> torch.Tensor:
        """Mean cross-entropy over the masked (answer) positions. targets, mask: ``(B, T)``; ``mode`` as in
        :meth:`forward` (the same numbers either way; the loop is faster for short sequences on a CPU)."""
        logits = self(tokens, mode=mode)
        return F.cross_entropy(logits[mask], targets[mask])
