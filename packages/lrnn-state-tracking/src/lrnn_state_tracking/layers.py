"""The two LRNN layers with the paper's eigenvalue-range switch, and the GH-product (DeltaProduct) layer.

``eig_range``: ``"01"`` (original: eigenvalues of every transition in [0, 1]), ``"pm1"`` (the paper's
extension, [−1, 1]), or a pair ``(lo, 1.0)`` with −1 ≤ lo ≤ 0 for the range [lo, 1]. The one-line change:
- Mamba: λ' = (1 − lo)·exp(Δ a) + lo, i.e. 2·exp(Δa) − 1 for ``"pm1"``, applied after discretisation;
  the input term Δ B u is unchanged (mamba_dev ``positive_and_negative``).
- DeltaNet: β = (1 − lo)·σ(w_βᵀx), i.e. 2σ(·) for ``"pm1"`` (fla ``sigmoid_scale``), so the transition
  I − β k kᵀ has eigenvalues 1 and 1 − β ∈ (lo, 1].
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from paperkit.validation import check_choice, check_int
from torch import nn

from lrnn_state_tracking.scan import (
    delta_rule_chunked,
    delta_rule_sequential,
    scan_diagonal,
    scan_diagonal_sequential,
)

__all__ = ["DeltaNet", "DiagonalLRNN", "GHProductRNN", "eig_low"]

MODES = ("parallel", "sequential")


def eig_low(eig_range: str | tuple[float, float]) -> float:
    """The lower end ``lo`` of an eigenvalue range ``"01"``, ``"pm1"`` or ``(lo, 1.0)``."""
    if isinstance(eig_range, str):
        if eig_range == "01":
            return 0.0
        if eig_range == "pm1":
            return -1.0
        raise ValueError(f"eig_range must be '01', 'pm1' or a pair (lo, 1.0), got {eig_range!r}")
    if not isinstance(eig_range, (tuple, list)) or len(eig_range) != 2:
        raise TypeError(f"eig_range must be '01', 'pm1' or a pair (lo, 1.0), got {eig_range!r}")
    lo, hi = (float(x) for x in eig_range)
    if not (-1.0 <= lo <= 0.0) or hi != 1.0:
        raise ValueError(
            f"eigenvalue range must lie in [-1, 1] as (lo, 1.0) with -1 <= lo <= 0, got ({lo:g}, {hi:g})"
        )
    return lo


def _check_mode(mode: str) -> None:
    check_choice(mode, "mode", MODES)


class CausalConv(nn.Module):
    """Depthwise causal 1-D convolution of width ``width`` over time: ``(B, T, C) -> (B, T, C)``."""

    def __init__(self, channels: int, width: int) -> None:
        super().__init__()
        self.conv = nn.Conv1d(channels, channels, width, groups=channels, padding=width - 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x.transpose(1, 2))[..., : x.shape[1]].transpose(1, 2)


class DiagonalLRNN(nn.Module):
    """Mamba-1 selective-SSM block with diagonal decays in (lo, 1).

    x, z = in_proj(u); x = silu(conv(x)); Δ = softplus(dt_proj(·)), B, C from x_proj(x);
    λ = exp(Δ a) with a = −exp(A_log) < 0, λ' = (1 − lo)λ + lo; h_t = λ'_t ⊙ h_{t−1} + Δ_t B_t x_t
    (per channel c and state index j); y = (C_t h_t + D x) ⊙ silu(z); out_proj(y).

    Args:
        d_model: width of the residual stream. d_state: N (16). expand: d_inner = expand·d_model (2).
        conv: short-convolution width (4); 0 for none (the theory's "same token ⇒ same matrix").
        eig_range: see the module docstring. chunk: steps per parallel-scan block.
    Input/output: ``(B, T, d_model)``.
    """

    def __init__(
        self,
        d_model: int,
        d_state: int = 16,
        expand: int = 2,
        conv: int = 4,
        eig_range: str | tuple[float, float] = "pm1",
        chunk: int = 64,
    ) -> None:
        super().__init__()
        self.lo = eig_low(eig_range)
        self.d_inner = expand * d_model
        self.d_state = d_state
        self.dt_rank = math.ceil(d_model / 16)
        self.chunk = chunk
        self.in_proj = nn.Linear(d_model, 2 * self.d_inner, bias=False)
        self.conv = CausalConv(self.d_inner, conv) if conv > 0 else None
        self.x_proj = nn.Linear(self.d_inner, self.dt_rank + 2 * d_state, bias=False)
        self.dt_proj = nn.Linear(self.dt_rank, self.d_inner)
        # Mamba's initialisation: Δ in [1e-3, 1e-1] log-uniformly, A = −(1, …, N) per channel.
        with torch.no_grad():
            dt = torch.exp(torch.rand(self.d_inner) * (math.log(0.1) - math.log(1e-3)) + math.log(1e-3))
            self.dt_proj.bias.copy_(dt + torch.log(-torch.expm1(-dt)))  # inverse softplus
        a = torch.arange(1, d_state + 1, dtype=torch.float32).repeat(self.d_inner, 1)
        self.A_log = nn.Parameter(torch.log(a))
        self.D = nn.Parameter(torch.ones(self.d_inner))
        self.out_proj = nn.Linear(self.d_inner, d_model, bias=False)

    def transitions(self, u: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """(decay λ' (B, T, d_inner, N), input Δ B x (B, T, d_inner, N), C (B, T, N), x (B, T, d_inner))
        and the gate z is applied in :meth:`forward`."""
        x, _ = self.in_proj(u).chunk(2, dim=-1)
        return self._transitions(x)

    def _transitions(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        x = F.silu(self.conv(x) if self.conv is not None else x)
        dt, b, c = self.x_proj(x).split([self.dt_rank, self.d_state, self.d_state], dim=-1)
        dt = F.softplus(self.dt_proj(dt))  # (B, T, d_inner)
        a = -torch.exp(self.A_log)  # (d_inner, N)
        decay = torch.exp(dt[..., None] * a)
        if self.lo != 0.0:
            decay = (1.0 - self.lo) * decay + self.lo
        inp = (dt * x)[..., None] * b[:, :, None, :]
        return decay, inp, c, x

    def forward(self, u: torch.Tensor, mode: str = "parallel") -> torch.Tensor:
        _check_mode(mode)
        x, z = self.in_proj(u).chunk(2, dim=-1)
        decay, inp, c, x = self._transitions(x)
        if mode == "parallel":
            h = scan_diagonal(decay, inp, chunk=self.chunk)
        else:
            h = scan_diagonal_sequential(decay, inp)
        y = torch.einsum("btdn,btn->btd", h, c) + self.D * x
        return self.out_proj(y * F.silu(z))


class DeltaNet(nn.Module):
    """DeltaNet layer (fla ``delta_net``): q, k, v projections → short causal conv + SiLU → heads;
    q, k L2-normalised; β = (1 − lo)·σ(w_βᵀx) per head; delta rule per head; per-head RMSNorm; o_proj.

    Args:
        d_model: width; d_k = d_v = d_model / n_heads. conv: short-conv width (0: none, q, k SiLU only).
        eig_range: see the module docstring. chunk: WY chunk size of the parallel form.
    Input/output: ``(B, T, d_model)``.
    """

    def __init__(
        self,
        d_model: int,
        n_heads: int = 4,
        conv: int = 4,
        eig_range: str | tuple[float, float] = "pm1",
        chunk: int = 16,  # the fastest of 16/32/64 for a training step at batch 64, T <= 40 (README)
    ) -> None:
        super().__init__()
        if d_model % n_heads:
            raise ValueError(f"d_model ({d_model}) must be divisible by n_heads ({n_heads})")
        self.lo = eig_low(eig_range)
        self.n_heads, self.d_head, self.chunk = n_heads, d_model // n_heads, chunk
        self.q_proj = nn.Linear(d_model, d_model, bias=False)
        self.k_proj = nn.Linear(d_model, d_model, bias=False)
        self.v_proj = nn.Linear(d_model, d_model, bias=False)
        self.b_proj = nn.Linear(d_model, n_heads, bias=False)
        self.convs = nn.ModuleList(CausalConv(d_model, conv) for _ in range(3)) if conv > 0 else None
        self.norm = nn.RMSNorm(self.d_head, eps=1e-5)
        self.o_proj = nn.Linear(d_model, d_model, bias=False)

    def _heads(self, x: torch.Tensor) -> torch.Tensor:  # (B, T, d) -> (B, H, T, d_head)
        return x.unflatten(-1, (self.n_heads, self.d_head)).transpose(1, 2)

    def qkvb(self, u: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """q (scaled by d_k^−½), k (unit), v: ``(B, H, T, d_head)``; β: ``(B, H, T)`` in (0, 1 − lo)."""
        q, k, v = self.q_proj(u), self.k_proj(u), self.v_proj(u)
        if self.convs is not None:
            q, k, v = (F.silu(cv(x)) for cv, x in zip(self.convs, (q, k, v), strict=True))
        else:
            q, k = F.silu(q), F.silu(k)
        q, k, v = self._heads(q), self._heads(k), self._heads(v)
        q = F.normalize(q, dim=-1, eps=1e-6) * self.d_head**-0.5
        k = F.normalize(k, dim=-1, eps=1e-6)
        beta = (1.0 - self.lo) * torch.sigmoid(self.b_proj(u)).transpose(1, 2)
        return q, k, v, beta

    def _mix(
        self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, beta: torch.Tensor, mode: str
    ) -> torch.Tensor:
        if mode == "parallel":
            o, _ = delta_rule_chunked(q, k, v, beta, chunk=self.chunk)
        else:
            o, _ = delta_rule_sequential(q, k, v, beta)
        return o

    def forward(self, u: torch.Tensor, mode: str = "parallel") -> torch.Tensor:
        _check_mode(mode)
        q, k, v, beta = self.qkvb(u)
        o = self.norm(self._mix(q, k, v, beta, mode))
        return self.o_proj(o.transpose(1, 2).flatten(2))


class GHProductRNN(DeltaNet):
    """DeltaNet with ``n_householder`` GH factors per token (DeltaProduct-style): token t applies
    (I − β_{t,m} k_{t,m} k_{t,m}ᵀ) ⋯ (I − β_{t,1} k_{t,1} k_{t,1}ᵀ) with a delta-rule write per factor.
    Implemented as the delta rule on the interleaved sequence of T·m micro-steps, read out after the
    last factor of each token. With ``"pm1"`` two factors can form rotations (e.g. by 2π/3 for
    counting mod 3), which no single real diagonal or single GH transition can.
    """

    def __init__(
        self,
        d_model: int,
        n_heads: int = 4,
        n_householder: int = 2,
        conv: int = 4,
        eig_range: str | tuple[float, float] = "pm1",
        chunk: int = 32,
    ) -> None:
        super().__init__(d_model, n_heads, conv, eig_range, chunk)
        check_int(n_householder, "n_householder", low=1)
        m = self.m = n_householder
        self.k_proj = nn.Linear(d_model, m * d_model, bias=False)
        self.v_proj = nn.Linear(d_model, m * d_model, bias=False)
        self.b_proj = nn.Linear(d_model, m * n_heads, bias=False)
        if self.convs is not None:
            self.convs = nn.ModuleList(CausalConv(c, conv) for c in (d_model, m * d_model, m * d_model))

    def forward(self, u: torch.Tensor, mode: str = "parallel") -> torch.Tensor:
        _check_mode(mode)
        bsz, t_len, _ = u.shape
        m, h, dh = self.m, self.n_heads, self.d_head
        q, k, v = self.q_proj(u), self.k_proj(u), self.v_proj(u)
        if self.convs is not None:
            q, k, v = (F.silu(cv(x)) for cv, x in zip(self.convs, (q, k, v), strict=True))
        else:
            q, k = F.silu(q), F.silu(k)

        def micro(x: torch.Tensor) -> torch.Tensor:  # (B, T, m·d) -> (B, H, T·m, d_head)
            return x.reshape(bsz, t_len, m, h, dh).permute(0, 3, 1, 2, 4).reshape(bsz, h, t_len * m, dh)

        k = F.normalize(micro(k), dim=-1, eps=1e-6)
        v = micro(v)
        qh = F.normalize(self._heads(q), dim=-1, eps=1e-6) * dh**-0.5  # (B, H, T, d_head)
        qm = torch.zeros(bsz, h, t_len, m, dh, dtype=u.dtype, device=u.device)
        qm[:, :, :, -1] = qh
        qm = qm.reshape(bsz, h, t_len * m, dh)
        beta = (1.0 - self.lo) * torch.sigmoid(self.b_proj(u))  # (B, T, m·H)
        beta = beta.reshape(bsz, t_len, m, h).permute(0, 3, 1, 2).reshape(bsz, h, t_len * m)
        o = self._mix(qm, k, v, beta, mode).reshape(bsz, h, t_len, m, dh)[:, :, :, -1]
        o = self.norm(o)
        return self.o_proj(o.transpose(1, 2).flatten(2))
