"""Closed-form parity solutions with negative eigenvalues (paper Section 4), run through the same
recurrence kernels the models use.

- Diagonal: h_t = a(x_t) h_{t−1}, h_0 = 1, a(0) = 1, a(1) = −1 ⇒ h_T = (−1)^{Σx}. The decays come from
  Mamba's extended parametrisation 2·exp(Δ·a) − 1 with a = −1 and Δ(0) = 0, Δ(1) = 100
  (exp(−100) rounds to −1 after 2·e − 1 in float32).
- DeltaNet: fixed unit key k, β(1) = 2 (a reflection), β(0) = 0 (identity), v fixed: then
  kᵀS_t = (1 − β_t) kᵀS_{t−1} + β_t vᵀ alternates between 2vᵀ and 0, so q = k reads parity.
"""

from __future__ import annotations

import torch

from lrnn_state_tracking.scan import delta_rule_chunked, delta_rule_sequential, scan_diagonal

__all__ = ["parity_deltanet_oracle", "parity_diag_oracle"]


def _check_bits(bits: torch.Tensor) -> None:
    if not isinstance(bits, torch.Tensor) or bits.ndim != 2 or bits.shape[1] == 0:
        raise ValueError("bits must be a (batch, T >= 1) tensor of 0/1")
    if bool(((bits != 0) & (bits != 1)).any()):
        raise ValueError("bits must contain only 0 and 1")


def parity_diag_oracle(bits: torch.Tensor, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """Parity predicted at every position by the diagonal construction.

    Args:
        bits: ``(B, T)`` of 0/1 (any integer dtype, any device).
    Returns:
        ``(B, T)`` int64 predictions (read from the sign of h_t).
    """
    _check_bits(bits)
    delta = 100.0 * bits.to(dtype)
    decay = 2.0 * torch.exp(-delta) - 1.0  # 1 for a 0-bit, −1 for a 1-bit
    h0 = torch.ones(bits.shape[0], dtype=dtype, device=bits.device)
    h = scan_diagonal(decay, torch.zeros_like(decay), h0, chunk=256)
    return (h < 0).long()


def parity_deltanet_oracle(
    bits: torch.Tensor,
    d_k: int = 4,
    dtype: torch.dtype = torch.float32,
    *,
    chunked: bool = True,
    seed: int = 0,
) -> torch.Tensor:
    """Parity predicted at every position by the DeltaNet construction with a random unit key.

    Args:
        bits: ``(B, T)`` of 0/1. d_k: key size. chunked: use the WY form (else the sequential loop).
    Returns:
        ``(B, T)`` int64 predictions: 1 when kᵀS_t ≈ 2vᵀ, 0 when ≈ 0.
    """
    _check_bits(bits)
    b, t = bits.shape
    gen = torch.Generator().manual_seed(seed)
    key = torch.randn(d_k, generator=gen, dtype=torch.float64)
    key = (key / key.norm()).to(dtype=dtype, device=bits.device)
    k = key.expand(b, 1, t, d_k)
    v = torch.ones(b, 1, t, 1, dtype=dtype, device=bits.device)
    beta = 2.0 * bits.to(dtype)[:, None, :]
    if chunked:
        o, _ = delta_rule_chunked(k, k, v, beta, chunk=64)
    else:
        o, _ = delta_rule_sequential(k, k, v, beta)
    return (o[:, 0, :, 0] > 1.0).long()  # readout kᵀS_t v̂ ∈ {0, 2}
