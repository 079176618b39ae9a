"""Generalised Householder (GH) matrices and their products (paper Section 4).

G(β, v) = I − β v vᵀ with ‖v‖ = 1 has eigenvalue 1 (multiplicity n − 1, on v⊥) and 1 − β (on v), so
β ∈ [0, 2] ⇔ spectrum ⊂ [−1, 1]; β = 2 is a reflection (orthogonal), β = 1 a projection ("reset").
Any permutation of n items is a product of at most n − 1 reflections I − (e_i − e_j)(e_i − e_j)ᵀ, the
fact behind the paper's "products of GH matrices recognise any regular language" construction.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

__all__ = [
    "gh",
    "gh_product",
    "permutation_as_reflections",
    "permutation_matrix",
    "reflection_for_transposition",
]


def _unit(v: torch.Tensor, eps: float = 1e-12) -> torch.Tensor:
    norm = torch.linalg.vector_norm(v, dim=-1, keepdim=True)
    if bool((norm <= eps).any()):
        raise ValueError("v must be non-zero (it is normalised to unit length)")
    return v / norm


def gh(beta: float | torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """G(β, v) = I − β v̂ v̂ᵀ with v̂ = v / ‖v‖.

    Args:
        beta: scalar, or a tensor broadcastable to v's batch shape ``(...,)``.
        v: ``(..., n)``, non-zero; normalised inside.
    Returns:
        ``(..., n, n)`` in v's dtype and device.
    """
    if not isinstance(v, torch.Tensor) or v.ndim < 1:
        raise TypeError("v must be a torch.Tensor of shape (..., n)")
    u = _unit(v)
    b = torch.as_tensor(beta, dtype=v.dtype, device=v.device)
    eye = torch.eye(v.shape[-1], dtype=v.dtype, device=v.device)
    return eye - b[..., None, None] * u[..., :, None] * u[..., None, :]


def gh_product(betas: torch.Tensor, vs: torch.Tensor) -> torch.Tensor:
    """G(β_m, v_m) ⋯ G(β_1, v_1): the first factor acts first.

    Args:
        betas: ``(m,)``; vs: ``(m, n)``.
    Returns:
        ``(n, n)``.
    """
    if vs.ndim != 2 or betas.shape != vs.shape[:1]:
        raise ValueError(f"expected betas (m,) and vs (m, n), got {tuple(betas.shape)} and {tuple(vs.shape)}")
    out = torch.eye(vs.shape[1], dtype=vs.dtype, device=vs.device)
    for g in gh(betas, vs):
        out = g @ out
    return out


def reflection_for_transposition(
    i: int, j: int, n: int, *, dtype: torch.dtype = torch.float64, device: str | torch.device = "cpu"
) -> torch.Tensor:
    """G(2, e_i − e_j) = I − (e_i − e_j)(e_i − e_j)ᵀ: the permutation matrix swapping items i and j."""
    if not (0 <= i < n and 0 <= j < n) or i == j:
        raise ValueError(f"need distinct 0 <= i, j < n, got i={i}, j={j}, n={n}")
    v = torch.zeros(n, dtype=dtype, device=device)
    v[i], v[j] = 1.0, -1.0
    return gh(2.0, v)


def permutation_matrix(perm: Sequence[int], *, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """P with P e_k = e_{perm[k]} (column k has its 1 in row perm[k])."""
    n = len(perm)
    if sorted(perm) != list(range(n)):
        raise ValueError(f"perm must be a permutation of 0..{n - 1}, got {list(perm)}")
    p = torch.zeros(n, n, dtype=dtype)
    p[list(perm), list(range(n))] = 1.0
    return p


def permutation_as_reflections(perm: Sequence[int]) -> list[tuple[int, int]]:
    """Transpositions (i, j), at most n − 1 of them, whose reflections multiply (first acts first) to
    :func:`permutation_matrix` ``(perm)``: the cycle decomposition written as transpositions."""
    n = len(perm)
    if sorted(perm) != list(range(n)):
        raise ValueError(f"perm must be a permutation of 0..{n - 1}, got {list(perm)}")
    # Build perm from the identity by swapping: track where each item currently is.
    swaps: list[tuple[int, int]] = []
    current = list(range(n))  # current[pos] = item at position pos, as positions are permuted
    where = list(range(n))  # where[item] = its position
    for item in range(n):
        target = perm[item]
        pos = where[item]
        if pos != target:
            other = current[target]
            swaps.append((pos, target))
            current[pos], current[target] = other, item
            where[other], where[item] = pos, target
    return swaps
