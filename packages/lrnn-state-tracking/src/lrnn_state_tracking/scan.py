"""The two recurrences and their parallel forms (pure functions on tensors, any device, autograd-ready).

Diagonal (Mamba):  h_t = a_t ⊙ h_{t−1} + b_t.
    :func:`scan_diagonal_sequential` — the reference loop, O(T) depth.
    :func:`scan_diagonal` — the associative scan of the pairs (a, b) with (a₂, b₂)∘(a₁, b₁) = (a₂a₁,
    a₂b₁ + b₂) (Hillis–Steele, O(log C) depth inside chunks of C steps; the state is carried between
    chunks so memory stays O(B·C·d) per chunk). No division by cumulative products, so decays that are
    0 or negative are exact.

Delta rule (DeltaNet), per head, state S ∈ R^{d_k×d_v}:
    S_t = (I − β_t k_t k_tᵀ) S_{t−1} + β_t k_t v_tᵀ = S_{t−1} + β_t k_t (v_t − S_{t−1}ᵀ k_t)ᵀ,
    o_t = S_tᵀ q_t.
    :func:`delta_rule_sequential` — the reference loop.
    :func:`delta_rule_chunked` — the chunkwise WY form: inside a chunk, with L_{ti} = β_t k_tᵀk_i (i < t),
    T = (I + L)⁻¹ (a unit-lower-triangular solve), W = T(β⊙K), U = T(β⊙V); then with the chunk's
    incoming state S₀, u = U − W S₀, O = Q S₀ + tril(Q Kᵀ) u, S ← S₀ + Kᵀ u. Exact in exact arithmetic.
"""

from __future__ import annotations

import torch
from paperkit.validation import check_int

__all__ = ["delta_rule_chunked", "delta_rule_sequential", "scan_diagonal", "scan_diagonal_sequential"]


def _check_pair(decay: torch.Tensor, inputs: torch.Tensor) -> None:
    if decay.shape != inputs.shape:
        raise ValueError(f"decay and inputs must have the same shape, got {decay.shape} and {inputs.shape}")
    if decay.ndim < 2 or decay.shape[1] == 0:
        raise ValueError(f"expected (batch, T, ...) with T >= 1, got shape {tuple(decay.shape)}")


def scan_diagonal_sequential(
    decay: torch.Tensor, inputs: torch.Tensor, h0: torch.Tensor | None = None
) -> torch.Tensor:
    """Reference loop for h_t = decay_t ⊙ h_{t−1} + inputs_t.

    Args:
        decay, inputs: ``(B, T, ...)``; h0: ``(B, ...)`` (default zeros).
    Returns:
        states ``(B, T, ...)``.
    """
    _check_pair(decay, inputs)
    h = torch.zeros_like(inputs[:, 0]) if h0 is None else h0
    out = []
    for t in range(decay.shape[1]):
        h = decay[:, t] * h + inputs[:, t]
        out.append(h)
    return torch.stack(out, 1)


def _scan_block(a: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Inclusive Hillis–Steele scan along dim 1: returns (∏_{s≤t} a_s, h_t with h_{-1} = 0)."""
    n = a.shape[1]
    off = 1
    while off < n:
        b = torch.cat([b[:, :off], a[:, off:] * b[:, :-off] + b[:, off:]], 1)
        a = torch.cat([a[:, :off], a[:, off:] * a[:, :-off]], 1)
        off *= 2
    return a, b


def scan_diagonal(
    decay: torch.Tensor, inputs: torch.Tensor, h0: torch.Tensor | None = None, *, chunk: int = 64
) -> torch.Tensor:
    """Parallel (associative) scan for h_t = decay_t ⊙ h_{t−1} + inputs_t; equals
    :func:`scan_diagonal_sequential` up to float rounding.

    Args:
        decay, inputs: ``(B, T, ...)``; h0: ``(B, ...)`` (default zeros).
        chunk: steps scanned in parallel at once (log₂(chunk) passes); the state is carried across chunks.
    Returns:
        states ``(B, T, ...)``.
    """
    _check_pair(decay, inputs)
    check_int(chunk, "chunk", low=1)
    outs = []
    h = h0
    for s in range(0, decay.shape[1], chunk):
        cum, states = _scan_block(decay[:, s : s + chunk], inputs[:, s : s + chunk])
        if h is not None:
            states = states + cum * h.unsqueeze(1)
        outs.append(states)
        h = states[:, -1]
    return outs[0] if len(outs) == 1 else torch.cat(outs, 1)


def _check_delta(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, beta: torch.Tensor) -> None:
    if q.shape != k.shape or q.ndim != 4 or v.ndim != 4 or v.shape[:3] != q.shape[:3]:
        raise ValueError(
            f"expected q, k (B, H, T, d_k) and v (B, H, T, d_v), got {tuple(q.shape)}, {tuple(k.shape)}, "
            f"{tuple(v.shape)}"
        )
    if beta.shape != q.shape[:3]:
        raise ValueError(f"beta must be (B, H, T) = {tuple(q.shape[:3])}, got {tuple(beta.shape)}")
    if q.shape[2] == 0:
        raise ValueError("sequence length T must be >= 1")


def delta_rule_sequential(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, beta: torch.Tensor, s0: torch.Tensor | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """Reference loop of the delta rule.

    Args:
        q, k: ``(B, H, T, d_k)``; v: ``(B, H, T, d_v)``; beta: ``(B, H, T)``; s0: ``(B, H, d_k, d_v)``.
    Returns:
        o ``(B, H, T, d_v)`` with o_t = S_tᵀ q_t, and the final state ``(B, H, d_k, d_v)``.
    """
    _check_delta(q, k, v, beta)
    b, h, t_len, dk = q.shape
    s = q.new_zeros(b, h, dk, v.shape[-1]) if s0 is None else s0
    outs = []
    for t in range(t_len):
        kt, vt, bt = k[:, :, t], v[:, :, t], beta[:, :, t, None]
        pred = torch.einsum("bhkv,bhk->bhv", s, kt)  # S_{t−1}ᵀ k_t
        s = s + torch.einsum("bhk,bhv->bhkv", kt, bt * (vt - pred))
        outs.append(torch.einsum("bhkv,bhk->bhv", s, q[:, :, t]))
    return torch.stack(outs, 2), s


def delta_rule_chunked(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    beta: torch.Tensor,
    s0: torch.Tensor | None = None,
    *,
    chunk: int = 32,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Chunkwise WY form of the delta rule; same inputs and outputs as :func:`delta_rule_sequential`.

    T is zero-padded to a multiple of ``chunk`` (k = 0, β = 0: the identity transition, no write).
    Work: O(T·C·d) inside chunks plus O((T/C)·d_k·d_v) across them.
    """
    _check_delta(q, k, v, beta)
    check_int(chunk, "chunk", low=1)
    b, h, t_len, dk = q.shape
    dv = v.shape[-1]
    c = min(chunk, t_len)
    pad = (-t_len) % c
    if pad:
        q, k, v = (torch.nn.functional.pad(x, (0, 0, 0, pad)) for x in (q, k, v))
        beta = torch.nn.functional.pad(beta, (0, pad))
    n = (t_len + pad) // c
    q, k, v = (x.reshape(b, h, n, c, x.shape[-1]) for x in (q, k, v))
    beta = beta.reshape(b, h, n, c, 1)
    kb, vb = k * beta, v * beta
    eye = torch.eye(c, dtype=q.dtype, device=q.device)
    lower = (kb @ k.transpose(-1, -2)).tril(-1)  # L_{ti} = β_t k_tᵀ k_i, i < t
    tinv = torch.linalg.solve_triangular(eye + lower, eye.expand_as(lower), upper=False, unitriangular=True)
    w, u_all = tinv @ kb, tinv @ vb
    qk = (q @ k.transpose(-1, -2)).tril()  # i <= t
    s = q.new_zeros(b, h, dk, dv) if s0 is None else s0
    outs = []
    for i in range(n):
        u = u_all[:, :, i] - w[:, :, i] @ s
        outs.append(q[:, :, i] @ s + qk[:, :, i] @ u)
        s = s + k[:, :, i].transpose(-1, -2) @ u
    o = torch.stack(outs, 2).reshape(b, h, n * c, dv)[:, :, :t_len]
    return o, s
