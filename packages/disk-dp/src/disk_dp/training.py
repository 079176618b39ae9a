"""Training loops: a DP optimiser on Poisson batches, or a non-private optimiser on the same batches."""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from paperkit.validation import check_int
from torch import nn

from disk_dp.accounting import epsilon
from disk_dp.data import Dataset
from disk_dp.optim import DPOptimizer, make_closure
from disk_dp.sampling import PoissonSampler


@dataclass(frozen=True)
class History:
    """What a training run produced.

    Attributes:
        test_acc: (epochs + 1,) test accuracy after each epoch (index 0: at initialisation), in [0, 1].
        train_loss: (epochs + 1,) mean training cross-entropy (nats) after each epoch.
        steps: optimiser steps taken.
        epsilon: (epsilon, delta)-DP of the run for the given delta (inf for non-private runs).
        seconds: wall time of the training loop.
    """

    test_acc: np.ndarray
    train_loss: np.ndarray
    steps: int
    epsilon: float
    seconds: float

    @property
    def final_acc(self) -> float:
        return float(self.test_acc[-1])


def cross_entropy(output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Summed cross-entropy (nats); on a batch of one example this is that example's loss."""
    return F.cross_entropy(output, target, reduction="sum")


@torch.no_grad()
def evaluate(model: nn.Module, data: Dataset) -> tuple[float, float]:
    """(test accuracy, mean training cross-entropy)."""
    acc = (model(data.x_test).argmax(1) == data.y_test).sum().item() / data.y_test.shape[0]
    loss = F.cross_entropy(model(data.x_train), data.y_train).item()
    return float(acc), float(loss)


def steps_for_epochs(epochs: float, q: float) -> int:
    """T = round(epochs / q) Poisson steps (each example is seen ``epochs`` times in expectation)."""
    return max(1, round(epochs / q))


def train(
    model: nn.Module,
    data: Dataset,
    optimizer: DPOptimizer | torch.optim.Optimizer,
    *,
    q: float,
    epochs: int,
    generator: torch.Generator,
    delta: float = 1e-5,
) -> History:
    """Train ``model`` on ``data`` for ``epochs`` with Poisson batches at rate ``q``.

    A :class:`DPOptimizer` (or DiSK) steps on per-sample gradients of each batch; a plain
    ``torch.optim.Optimizer`` steps on the batch's mean loss (the non-private reference). ``generator``
    draws the batches (its device must be the data's). Evaluated after every epoch (every T/epochs steps).
    """
    check_int(epochs, "epochs", low=1)
    if isinstance(optimizer, DPOptimizer) and delta >= 1.0 / data.n:
        warnings.warn(
            f"delta = {delta:g} >= 1/n = {1.0 / data.n:.3g}: such a delta permits releasing a record "
            "outright",
            stacklevel=2,
        )
    steps = steps_for_epochs(epochs, q)
    every = max(1, steps // epochs)
    accs, losses = [], []
    a, ell = evaluate(model, data)
    accs.append(a)
    losses.append(ell)
    t0 = time.process_time()
    last_eval = 0  # the step after which accs[-1] was measured
    for t, idx in enumerate(PoissonSampler(data.n, q, steps, generator), start=1):
        x, y = data.x_train[idx], data.y_train[idx]
        if isinstance(optimizer, DPOptimizer):
            optimizer.step(make_closure(model, cross_entropy, x, y, summed=True))
        elif len(idx) > 0:
            optimizer.zero_grad(set_to_none=True)
            F.cross_entropy(model(x), y).backward()
            optimizer.step()
        if t % every == 0 and len(accs) <= epochs:
            a, ell = evaluate(model, data)
            accs.append(a)
            losses.append(ell)
            last_eval = t
    seconds = time.process_time() - t0
    # q <= 1 makes T >= epochs, so the loop evaluated exactly ``epochs`` times; when T is not a multiple of
    # ``every`` the last of them came before the last step
    if last_eval != steps:
        accs[-1], losses[-1] = evaluate(model, data)
    if isinstance(optimizer, DPOptimizer):
        eps = epsilon(q, optimizer.effective_noise_multiplier, steps, delta)
    else:
        eps = float("inf")
    return History(np.array(accs), np.array(losses), steps, eps, seconds)


__all__ = ["History", "cross_entropy", "evaluate", "steps_for_epochs", "train"]
