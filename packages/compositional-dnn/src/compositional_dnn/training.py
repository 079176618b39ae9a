"""Staged Adam training with increasing weight decay (official ``Net.train`` called three times).

Each stage ``(lr, weight_decay, epochs)`` sets the learning rate and weight decay of one Adam optimiser
(kept across the stages, so its moment estimates carry over, as in the official code) and runs ``epochs``
passes over the training set in ``n_batches`` contiguous mini-batches (no shuffling, as in the code).
The loss is the mean squared error over all samples and outputs (``nn.MSELoss``, the final notebook's
"L2"). Adam's ``weight_decay`` is the coupled L2 penalty (torch.optim.Adam, not AdamW), as in the code;
the optimiser is ``paperkit.optim.Adam`` (the same update without torch.optim's import cost).

The paper analyses the global minimiser of L_N(f) + lambda R(f_1..f_L) with the F1/Lipschitz complexity R;
the code (and this package) replaces R by plain weight decay, which for a balanced ReLU block equals the
F1 proxy sum_i ||W[:, i]|| ||V_i|| (see ``models``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
from paperkit import check_array, check_instance, check_int, check_number, check_positive
from paperkit.optim import Adam
from torch import nn

__all__ = ["FINAL_NOTEBOOK_STAGES", "Stage", "TrainLog", "mse", "train_staged"]

Stage = tuple[float, float, int]  # (lr, weight_decay, epochs)

# paper_code/final_submit_test1.ipynb: (1e-3, 0, 500) -> (3e-4, 1e-4, 500) -> (1e-4, 2e-4, 2000), 5 batches.
FINAL_NOTEBOOK_STAGES: tuple[Stage, ...] = ((1e-3, 0.0, 500), (3e-4, 1e-4, 500), (1e-4, 2e-4, 2000))


@dataclass(frozen=True)
class TrainLog:
    """What training saw: the mean mini-batch loss of each epoch ``(total epochs,)`` and, per stage, the
    (lr, weight_decay) read back from the optimiser."""

    epoch_loss: torch.Tensor
    stage_groups: tuple[tuple[float, float], ...]


def check_stages(stages: Sequence[Stage]) -> tuple[Stage, ...]:
    """The stages as ``(lr > 0, weight_decay >= 0, epochs >= 1)`` tuples of plain numbers."""
    if isinstance(stages, str) or not isinstance(stages, Sequence):
        raise TypeError(f"stages must be a non-empty sequence of (lr, weight_decay, epochs), got {stages!r}")
    if not stages:
        raise ValueError("stages must be a non-empty sequence of (lr, weight_decay, epochs), got none")
    out = []
    for s in stages:
        if isinstance(s, str) or not isinstance(s, Sequence) or len(s) != 3:
            raise ValueError(f"stages entries must be (lr, weight_decay, epochs), got {s!r}")
        out.append((
            check_positive(s[0], "stages lr"), check_number(s[1], "stages weight_decay", low=0),
            check_int(s[2], "stages epochs", low=1),
        ))  # fmt: skip
    return tuple(out)


def _check_tensors(model: nn.Module, X: torch.Tensor, Y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``X (n >= 1, d)``, ``Y (n, k)``: finite float tensors on the model's device (and its input width)."""
    X, Y = check_instance(X, "X", torch.Tensor), check_instance(Y, "Y", torch.Tensor)
    X = check_array(X, "X", ndim=2, kind="f")
    Y = check_array(Y, "Y", shape=(X.shape[0], None), kind="f")
    if X.shape[0] == 0:
        raise ValueError("X must have at least one row, got 0")
    widths = getattr(model, "widths", None)
    if widths is not None and (X.shape[1] != widths[0] or Y.shape[1] != widths[-1]):
        raise ValueError(f"X and Y must have {widths[0]} and {widths[-1]} columns (the model's), got "
                         f"{X.shape[1]} and {Y.shape[1]}")  # fmt: skip
    param = next(model.parameters(), None)
    for name, t in (("X", X), ("Y", Y)):
        if param is not None and t.device != param.device:
            raise ValueError(f"{name} is on {t.device}, the model on {param.device}")
    return X, Y


def mse(model: nn.Module, X: torch.Tensor, Y: torch.Tensor) -> float:
    """Mean squared error over all entries, without gradients."""
    with torch.no_grad():
        return float((model(X) - Y).square().mean())


def train_staged(
    model: nn.Module,
    X: torch.Tensor,
    Y: torch.Tensor,
    *,
    stages: Sequence[Stage],
    n_batches: int = 5,
) -> TrainLog:
    """Train ``model`` in place on ``X (n, d_in)``, ``Y (n, d_out)`` (float32 tensors on its device)."""
    check_instance(model, "model", nn.Module)
    stages = check_stages(stages)
    X, Y = _check_tensors(model, X, Y)
    n_batches = check_int(n_batches, "n_batches", low=1, high=X.shape[0])
    size = X.shape[0] // n_batches  # official: N // num_batches rows per batch, the remainder unused
    xb, yb = X[: size * n_batches].split(size), Y[: size * n_batches].split(size)
    opt = Adam(model.parameters(), lr=stages[0][0])
    losses, groups = [], []
    for lr, wd, epochs in stages:
        opt.lr, opt.weight_decay = lr, wd
        groups.append((opt.lr, opt.weight_decay))
        for _ in range(epochs):
            total = torch.zeros((), device=X.device)
            for x, y in zip(xb, yb, strict=True):
                opt.zero_grad()
                loss = (model(x) - y).square().mean()
                loss.backward()
                opt.step()
                total += loss.detach()
            losses.append(total / n_batches)
    return TrainLog(torch.stack(losses).cpu(), tuple(groups))
