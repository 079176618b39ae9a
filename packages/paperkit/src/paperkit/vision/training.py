"""An epoch trainer for small vision models under one torch thread, and batched evaluation.

One epoch visits every training example once in an order drawn from ``torch.Generator(seed)`` (a new
permutation per epoch, last batch smaller), applies ``augment(x_batch, generator)`` if given, and takes one
optimiser step per batch on the mean cross-entropy. The model is in ``train()`` mode while training (BatchNorm
uses batch statistics) and evaluated in ``eval()`` mode; its previous mode is restored afterwards.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from paperkit.runtime import torch_threads
from paperkit.validation import (
    check_choice,
    check_finite,
    check_instance,
    check_int,
    check_number,
    check_positive,
    check_seed,
)
from paperkit.vision.common import check_labels, check_model

__all__ = ["OPTIMIZERS", "TrainLog", "accuracy", "evaluate", "make_optimizer", "predict", "train_epochs"]

OPTIMIZERS = ("adam", "sgd")
Augment = Callable[[torch.Tensor, torch.Generator], torch.Tensor]


@dataclass(frozen=True)
class TrainLog:
    """Per-epoch records: ``loss`` (mean training cross-entropy over the epoch's batches), ``train_accuracy``
    (accuracy on the epoch's (augmented) batches, as seen while training) and ``steps`` (optimiser steps)."""

    loss: np.ndarray
    train_accuracy: np.ndarray
    steps: int


def make_optimizer(
    model: nn.Module,
    name: str = "adam",
    *,
    lr: float = 1e-3,
    weight_decay: float = 0.0,
    momentum: float = 0.9,
) -> torch.optim.Optimizer:
    """``torch.optim.Adam`` or ``SGD`` (with ``momentum``) over the model's parameters."""
    check_model(model)
    name = check_choice(name, "optimizer name", OPTIMIZERS)
    lr = check_positive(lr, "lr")
    weight_decay = check_positive(weight_decay, "weight_decay", strict=False)
    if name == "adam":
        return torch.optim.Adam(model.parameters(), lr=lr, weight_decay=weight_decay)
    momentum = check_number(momentum, "momentum", low=0.0, high=1.0, high_open=True)
    return torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum, weight_decay=weight_decay)


def _check_xy(x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    x = check_finite(check_instance(x, "x", torch.Tensor), "x")
    return x, check_labels(y, len(x))


def train_epochs(
    model: nn.Module,
    x: torch.Tensor,
    y: torch.Tensor,
    *,
    epochs: int,
    batch_size: int = 64,
    optimizer: torch.optim.Optimizer | str = "adam",
    lr: float = 1e-3,
    weight_decay: float = 0.0,
    augment: Augment | None = None,
    seed: int = 0,
    threads: int = 1,
) -> TrainLog:
    """Train ``model`` in place for ``epochs`` epochs on ``(x, y)`` (on the model's device).

    ``optimizer`` is a name (built with ``lr``/``weight_decay``) or an optimiser over the model's
    parameters, which carries its state over (continual learning calls this once per task).
    """
    check_model(model)
    x, y = _check_xy(x, y)
    if augment is not None and not callable(augment):
        raise TypeError(
            f"augment must be None or a callable (x, generator) -> x, got {type(augment).__name__}"
        )
    epochs = check_int(epochs, "epochs", low=0)
    batch_size = check_int(batch_size, "batch_size", low=1)
    threads, seed = check_int(threads, "threads", low=1), check_seed(seed)  # all checked before any work
    if isinstance(optimizer, str):
        opt = make_optimizer(model, optimizer, lr=lr, weight_decay=weight_decay)
    else:
        opt = check_instance(optimizer, "optimizer", torch.optim.Optimizer)
    gen = torch.Generator(device=x.device).manual_seed(seed)
    losses, accs, steps = [], [], 0
    was_training = model.training
    with torch_threads(threads):
        model.train()
        for _ in range(epochs):
            order = torch.randperm(len(x), generator=gen, device=x.device)
            tot_loss, correct = torch.zeros((), device=x.device), torch.zeros((), device=x.device)
            for idx in order.split(batch_size):
                xb, yb = x[idx], y[idx]
                if augment is not None:
                    xb = augment(xb, gen)
                logits = model(xb)
                loss = nn.functional.cross_entropy(logits, yb)
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
                steps += 1
                tot_loss += loss.detach() * len(idx)
                correct += (logits.detach().argmax(1) == yb).sum()
            losses.append(float(tot_loss) / len(x))  # one sync per epoch, not per step
            accs.append(float(correct) / len(x))
    model.train(was_training)
    return TrainLog(np.asarray(losses), np.asarray(accs), steps)


@torch.no_grad()
def predict(model: nn.Module, x: torch.Tensor, *, batch_size: int = 1024) -> torch.Tensor:
    """Logits ``(n, classes)`` in ``eval()`` mode, in batches of ``batch_size``."""
    check_model(model)
    x = check_instance(x, "x", torch.Tensor)
    batch_size = check_int(batch_size, "batch_size", low=1)
    was_training = model.training
    model.eval()
    try:
        return torch.cat([model(xb) for xb in x.split(batch_size)])
    finally:
        model.train(was_training)


def accuracy(logits: torch.Tensor, y: torch.Tensor) -> float:
    """Fraction of rows whose argmax equals the label (``logits (n, classes)``, ``y (n,)`` int64)."""
    logits = check_finite(check_instance(logits, "logits", torch.Tensor), "logits")
    if logits.ndim != 2:
        raise ValueError(f"logits must be (n, classes), got shape {tuple(logits.shape)}")
    y = check_labels(y, len(logits))
    return float((logits.argmax(1) == y).float().mean())


def evaluate(model: nn.Module, x: torch.Tensor, y: torch.Tensor, *, batch_size: int = 1024) -> float:
    """Accuracy of ``model`` on ``(x, y)`` in ``eval()`` mode."""
    check_model(model)
    x, y = _check_xy(x, y)
    return accuracy(predict(model, x, batch_size=batch_size), y)
