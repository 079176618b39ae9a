"""The paper's three losses over the off-diagonal dyads (GraphEmbeddings/graph_embeddings/utils/loss.py).

Each takes logits ``Λ`` (R, N), the adjacency block ``A`` (R, N) bool and the rows' node indices
``rows`` (R,) (None: a square block, rows = 0..N-1); the entries ``(r, rows[r])`` (self pairs) are excluded.
With ``Ã = 2A − 1``:

- logistic: ``Σ log(1 + exp(−Ã Λ))``;
- hinge:    ``Σ max(0, m − Ã Λ)`` (m = 0 full-batch, 1 in the case-control/HBDM variants);
- Poisson:  ``Σ exp(Λ) − A Λ`` (its reconstruction threshold is ``τ = log ½``).

All return a 0-dim tensor (a sum, in the logits' units).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
import torch.nn.functional as F

LOSSES = ("logistic", "hinge", "poisson")


def threshold(loss: str) -> float:
    """The reconstruction threshold τ: 0 for the Bernoulli losses, log ½ for Poisson."""
    if loss not in LOSSES:
        raise ValueError(f"loss must be one of {LOSSES}, got {loss!r}")
    return math.log(0.5) if loss == "poisson" else 0.0


def offdiag_mask(shape: tuple[int, int], rows: torch.Tensor | None, device: torch.device) -> torch.Tensor:
    """(R, N) bool, False at ``(r, rows[r])``."""
    R, N = shape
    r_idx = torch.arange(R, device=device) if rows is None else rows
    mask = torch.ones(R, N, dtype=torch.bool, device=device)
    mask[torch.arange(R, device=device), r_idx] = False
    return mask


def _signed(A: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
    return A.to(like.dtype) * 2.0 - 1.0


def logistic(logits: torch.Tensor, A: torch.Tensor, rows: torch.Tensor | None = None) -> torch.Tensor:
    mask = offdiag_mask(tuple(logits.shape), rows, logits.device)  # type: ignore[arg-type]
    return (F.softplus(-_signed(A, logits) * logits) * mask).sum()


def hinge(
    logits: torch.Tensor, A: torch.Tensor, rows: torch.Tensor | None = None, margin: float = 0.0
) -> torch.Tensor:
    mask = offdiag_mask(tuple(logits.shape), rows, logits.device)  # type: ignore[arg-type]
    return (torch.relu(margin - _signed(A, logits) * logits) * mask).sum()


def poisson(logits: torch.Tensor, A: torch.Tensor, rows: torch.Tensor | None = None) -> torch.Tensor:
    mask = offdiag_mask(tuple(logits.shape), rows, logits.device)  # type: ignore[arg-type]
    return ((torch.exp(logits) - A.to(logits.dtype) * logits) * mask).sum()


def dense_loss(
    name: str, A: torch.Tensor, margin: float = 0.0, dtype: torch.dtype = torch.float64
) -> Callable[[torch.Tensor], torch.Tensor]:
    """The loss of a full (N, N) logit matrix as a closure with Ã and the diagonal mask precomputed.

    Same values as :func:`logistic`, :func:`hinge`, :func:`poisson` with ``rows=None`` (tested), with fewer
    tensor operations per training step.
    """
    if name not in LOSSES:
        raise ValueError(f"loss must be one of {LOSSES}, got {name!r}")
    M = offdiag_mask(tuple(A.shape), None, A.device).to(dtype)  # type: ignore[arg-type]
    Af = A.to(dtype) * M
    S = (2.0 * Af - 1.0) * M  # Ã with 0 on the diagonal
    if name == "hinge":
        Mm = margin * M
        return lambda logits: torch.relu(Mm - S * logits).sum()
    if name == "logistic":
        return lambda logits: (F.softplus(-S * logits) * M).sum()
    return lambda logits: ((torch.exp(logits) - Af * logits) * M).sum()
