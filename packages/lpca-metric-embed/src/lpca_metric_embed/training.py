"""Full-batch training at one dimension D (GraphEmbeddings trainer: Adam, plateau halving, early exit).

Per epoch: the loss over all N(N−1) off-diagonal dyads, one Adam step. Every ``eval_every`` epochs (and
before the first step, so that an exact warm start is recognised at once) the float64 certificate
(:func:`lpca_metric_embed.dense_mismatch`) decides exactness; training stops as soon as it is 0.
Exactness is never read off the loss: hinge with margin 0 has a degenerate zero (all points equal,
β = 0) that predicts every pair a link. If the loss has not improved for ``patience`` epochs the learning
rate is halved (StepLR γ = 0.5 in the official code); training gives up when it falls to ``min_lr``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch
from paperkit.optim import Adam
from paperkit.validation import check_int

from lpca_metric_embed.graphs import DENSE_MAX_NODES, check_dense_size, to_graph
from lpca_metric_embed.losses import LOSSES, dense_loss, threshold
from lpca_metric_embed.models import make_model, to_numpy
from lpca_metric_embed.recon import dense_mismatch

MODELS = ("l2", "lpca")


@dataclass(frozen=True, eq=False)
class FitResult:
    """One training run at dimension ``dim``.

    Attributes:
        exact: the float64 certificate found 0 misclassified pairs.
        dim, model, loss: what was trained; tau: its reconstruction threshold.
        X, Y: (N, dim) float64 final embeddings; beta: β for L2, None for LPCA.
        epochs: optimiser steps taken; n_wrong: misclassified pairs at the last check.
        curve: ``{"epoch": [...], "loss": [...], "n_wrong": [...]}`` at every check (loss of that epoch).
    """

    exact: bool
    dim: int
    model: str
    loss: str
    tau: float
    X: np.ndarray
    Y: np.ndarray
    beta: float | None
    epochs: int
    n_wrong: int
    curve: dict[str, list[float]] = field(default_factory=dict)


def validate_common(model: str, loss: str, dim: int) -> None:
    if model not in MODELS:
        raise ValueError(f"model must be one of {MODELS}, got {model!r}")
    if loss not in LOSSES:
        raise ValueError(f"loss must be one of {LOSSES}, got {loss!r}")
    check_int(dim, "dim (the embedding dimension D)", low=1)


def initial_embedding(
    n: int,
    dim: int,
    model: str,
    init: tuple[np.ndarray, np.ndarray] | None,
    gen: torch.Generator,
    device: str,
    dtype: torch.dtype,
) -> tuple[torch.Tensor, torch.Tensor, float | None]:
    """X0, Y0 (N(0, 1) entries unless ``init`` is given) and β0 ~ U(0, 1) for L2 (fresh at every fit)."""
    if init is None:
        X0 = torch.randn(n, dim, generator=gen, device=device, dtype=dtype)
        Y0 = torch.randn(n, dim, generator=gen, device=device, dtype=dtype)
    else:
        X0 = torch.as_tensor(np.asarray(init[0]), device=device, dtype=dtype)
        Y0 = torch.as_tensor(np.asarray(init[1]), device=device, dtype=dtype)
        if X0.shape != (n, dim) or Y0.shape != (n, dim):
            raise ValueError(
                f"init must be two ({n}, {dim}) arrays, got {tuple(X0.shape)}, {tuple(Y0.shape)}"
            )
    beta = float(torch.rand((), generator=gen, device=device, dtype=dtype)) if model == "l2" else None
    return X0, Y0, beta


def fit(
    graph: object,
    dim: int,
    *,
    model: str = "l2",
    loss: str = "hinge",
    lr: float = 1.0,
    max_epochs: int = 30_000,
    patience: int = 200,
    eval_every: int = 100,
    min_lr: float = 1e-3,
    margin: float = 0.0,
    init: tuple[np.ndarray, np.ndarray] | None = None,
    seed: int = 0,
    device: str = "cpu",
    dtype: torch.dtype = torch.float64,
) -> FitResult:
    """Train ``model`` ("l2" | "lpca") with ``loss`` at dimension ``dim``, full batch.

    Args:
        graph: anything :func:`lpca_metric_embed.to_graph` accepts; N <= DENSE_MAX_NODES (N² logits per
            step; larger graphs: :func:`lpca_metric_embed.fit_active_set`).
        dim: D >= 1.
        lr: Adam's learning rate (1.0 for the paper's real graphs, 0.2-0.5 for synthetic ones).
        max_epochs, patience, eval_every, min_lr: the stopping rules above (paper: 30,000, 200, 100).
        margin: hinge margin m (0 in the full-batch code).
        init: (X0, Y0) of shape (N, dim) (e.g. a PCA warm start); default N(0, 1).
        seed: seeds the torch generator of the initialisation (X0, Y0 and β0).
        device, dtype: where and in which precision to train (the certificate is always float64).
    """
    validate_common(model, loss, dim)
    g = to_graph(graph)
    check_dense_size(g.n, DENSE_MAX_NODES, "full-batch training (N² logits per step)")
    if not lr > 0 or not min_lr > 0:
        raise ValueError(f"lr and min_lr must be positive, got lr={lr}, min_lr={min_lr}")
    if max_epochs < 0 or eval_every < 1 or patience < 1:
        raise ValueError("max_epochs must be >= 0, eval_every and patience >= 1")
    tau = threshold(loss)
    gen = torch.Generator(device=device).manual_seed(int(seed))
    X0, Y0, beta0 = initial_embedding(g.n, int(dim), model, init, gen, device, dtype)
    net = make_model(model, X0, Y0, beta0)
    A = torch.as_tensor(g.dense(), device=device)
    batch_loss = dense_loss(loss, A, margin, dtype)
    opt = Adam(net.parameters(), lr=lr)
    best, since = float("inf"), 0
    curve: dict[str, list[float]] = {"epoch": [], "loss": [], "n_wrong": []}

    def check(epoch: int, loss_now: float) -> int:
        X, Y, b = to_numpy(net)
        wrong = dense_mismatch(X, Y, b, g, tau).n_wrong
        curve["epoch"].append(epoch)
        curve["loss"].append(loss_now)
        curve["n_wrong"].append(wrong)
        return wrong

    with torch.no_grad():
        start_loss = float(batch_loss(net.logits()))
    wrong = check(0, start_loss)
    epoch = 0
    while wrong > 0 and epoch < max_epochs:
        opt.zero_grad()
        value = batch_loss(net.logits())
        value.backward()
        opt.step()
        epoch += 1
        v = float(value.detach())
        if v < best:
            best, since = v, 0
        else:
            since += 1
            if since >= patience:
                opt.lr *= 0.5
                since = 0
        stop = opt.lr <= min_lr
        if epoch % eval_every == 0 or epoch == max_epochs or stop:
            wrong = check(epoch, v)
        if stop:
            break
    X, Y, b = to_numpy(net)
    return FitResult(wrong == 0, int(dim), model, loss, tau, X, Y, b, epoch, wrong, curve)
