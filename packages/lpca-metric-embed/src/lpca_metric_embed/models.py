"""The two score models: logistic PCA (Chanpuriya et al., 2020) and the Euclidean latent distance model.

Both hold two node matrices ``X, Y`` (N, D) (paper §2: separate "source" and "target" embeddings, also for
undirected graphs) and give logits ``Λ_ij``; a pair is predicted a link iff ``Λ_ij >= τ``.

- LPCA: ``Λ_ij = x_iᵀ y_j`` (no bias).
- L2:   ``Λ_ij = β − ‖x_i − y_j‖₂`` with one learned scalar β (official code: ``β ~ U(0, 1)`` at init).

The training distance is ``sqrt(‖x_i − y_j‖² + eps)``: raw ``cdist`` has NaN gradients where ``x_i = y_j``.
The exactness certificate (``recon``) uses exact float64 distances, never this smoothed one.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

#: Inside the square root of the training distance; gives a finite gradient at ``x_i = y_j``.
DIST_EPS = 1e-12


class LPCAEmbedding(nn.Module):
    """``Λ_ij = x_iᵀ y_j``.

    Args:
        X, Y: (N, D) float tensors (copied into parameters).
    """

    kind = "lpca"

    def __init__(self, X: torch.Tensor, Y: torch.Tensor) -> None:
        super().__init__()
        if X.ndim != 2 or X.shape != Y.shape:
            raise ValueError(f"X and Y must both be (N, D), got {tuple(X.shape)} and {tuple(Y.shape)}")
        self.X = nn.Parameter(X.detach().clone())
        self.Y = nn.Parameter(Y.detach().clone())

    def logits(self, rows: torch.Tensor | None = None) -> torch.Tensor:
        """(R, N) logits of rows ``rows`` (all N rows when None) against every column."""
        x = self.X if rows is None else self.X[rows]
        return x @ self.Y.T

    def pair_logits(self, i: torch.Tensor, j: torch.Tensor) -> torch.Tensor:
        """(K,) logits of the pairs ``(i_k, j_k)``."""
        return (self.X.index_select(0, i) * self.Y.index_select(0, j)).sum(-1)

    def beta_value(self) -> float | None:
        return None


class L2Embedding(nn.Module):
    """``Λ_ij = β − ‖x_i − y_j‖₂``.

    Args:
        X, Y: (N, D) float tensors; beta: the initial β (a float).
    """

    kind = "l2"

    def __init__(self, X: torch.Tensor, Y: torch.Tensor, beta: float) -> None:
        super().__init__()
        if X.ndim != 2 or X.shape != Y.shape:
            raise ValueError(f"X and Y must both be (N, D), got {tuple(X.shape)} and {tuple(Y.shape)}")
        self.X = nn.Parameter(X.detach().clone())
        self.Y = nn.Parameter(Y.detach().clone())
        self.beta = nn.Parameter(torch.tensor(float(beta), dtype=X.dtype, device=X.device))

    def logits(self, rows: torch.Tensor | None = None) -> torch.Tensor:
        """(R, N) logits; distances from ``‖x‖² + ‖y‖² − 2xᵀy`` clamped at 0 (smoothed, see module doc)."""
        x = self.X if rows is None else self.X[rows]
        sq = (x * x).sum(1, keepdim=True) + (self.Y * self.Y).sum(1)[None, :] - 2.0 * (x @ self.Y.T)
        return self.beta - torch.sqrt(sq.clamp_min(0.0) + DIST_EPS)

    def pair_logits(self, i: torch.Tensor, j: torch.Tensor) -> torch.Tensor:
        """(K,) logits of the pairs ``(i_k, j_k)``."""
        diff = self.X.index_select(0, i) - self.Y.index_select(0, j)
        return self.beta - torch.sqrt((diff * diff).sum(-1) + DIST_EPS)

    def beta_value(self) -> float | None:
        return float(self.beta.detach())


Embedding = LPCAEmbedding | L2Embedding


def make_model(kind: str, X: torch.Tensor, Y: torch.Tensor, beta: float | None = None) -> Embedding:
    """``kind`` "l2" (needs ``beta``) or "lpca" (``beta`` ignored)."""
    if kind == "lpca":
        return LPCAEmbedding(X, Y)
    if kind == "l2":
        if beta is None:
            raise ValueError("the L2 model needs an initial beta")
        return L2Embedding(X, Y, beta)
    raise ValueError(f"model must be 'l2' or 'lpca', got {kind!r}")


def to_numpy(model: Embedding) -> tuple[np.ndarray, np.ndarray, float | None]:
    """(X, Y, β) as float64 numpy arrays (β None for LPCA)."""
    X = model.X.detach().to("cpu", torch.float64).numpy().copy()
    Y = model.Y.detach().to("cpu", torch.float64).numpy().copy()
    return X, Y, model.beta_value()
