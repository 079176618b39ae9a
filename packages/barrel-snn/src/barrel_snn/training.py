"""BPTT training of :class:`~barrel_snn.models.BarrelSNN` with the official optimiser schedule.

Official ``train``: Adam, lr 0.008 for weights, x5 for tau_adp, x2 for tau_m; StepLR(step 20 epochs,
gamma 0.8); loss CE(o / T, y) on the summed softmax o; batch 128; prediction argmax o.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch
from paperkit.validation import check_int
from torch import nn

from barrel_snn.models import BarrelSNN, loss_fn


@dataclass
class History:
    """Per-epoch mean training loss and training accuracy."""

    loss: list[float] = field(default_factory=list)
    train_acc: list[float] = field(default_factory=list)


def _check_data(x_force: np.ndarray, x_torque: np.ndarray, labels: np.ndarray) -> None:
    if not (isinstance(x_force, np.ndarray) and isinstance(x_torque, np.ndarray)):
        raise TypeError("x_force and x_torque must be numpy arrays of shape (N, T, 93)")
    if x_force.ndim != 3 or x_force.shape != x_torque.shape:
        raise ValueError(
            f"x_force and x_torque must both be (N, T, 93), got {x_force.shape} and {x_torque.shape}"
        )
    if labels.shape != (x_force.shape[0],):
        raise ValueError(f"labels must have shape ({x_force.shape[0]},), got {labels.shape}")


def make_optimizer(
    model: BarrelSNN, lr: float = 8e-3, tau_lr_mult: tuple[float, float] = (5.0, 2.0)
) -> torch.optim.Adam:
    """Adam with three groups: weights at ``lr``, tau_adp at lr x 5, tau_m at lr x 2 (official)."""
    tau_adp, tau_m = model.tau_parameters()
    special = {id(p) for p in (*tau_adp, *tau_m)}
    base = [p for p in model.parameters() if id(p) not in special]
    return torch.optim.Adam(
        [
            {"params": base, "lr": lr},
            {"params": tau_adp, "lr": lr * tau_lr_mult[0]},
            {"params": tau_m, "lr": lr * tau_lr_mult[1]},
        ]
    )


def train(
    model: nn.Module,
    x_force: np.ndarray,
    x_torque: np.ndarray,
    labels: np.ndarray,
    epochs: int = 100,
    lr: float = 8e-3,
    tau_lr_mult: tuple[float, float] = (5.0, 2.0),
    step: int = 20,
    gamma: float = 0.8,
    batch: int = 128,
    seed: int = 515,
    double_softmax: bool = True,
) -> History:
    """Train ``model`` in place on spike trains (N, T, 93) and labels (N,) int.

    A :class:`BarrelSNN` gets the official three learning-rate groups and its loss; any other module
    (a baseline returning logits (batch, 3)) gets one Adam group and plain cross-entropy.
    """
    _check_data(x_force, x_torque, labels)
    check_int(epochs, "epochs", low=0)
    check_int(batch, "batch", low=1)
    device = next(model.parameters()).device
    is_snn = isinstance(model, BarrelSNN)
    opt = (
        make_optimizer(model, lr, tau_lr_mult)
        if isinstance(model, BarrelSNN)
        else torch.optim.Adam(model.parameters(), lr=lr)
    )
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=step, gamma=gamma)
    rng = np.random.default_rng(seed)
    n, T = x_force.shape[0], x_force.shape[1]
    hist = History()
    model.train()
    for _ in range(epochs):
        order = rng.permutation(n)
        tot_loss, correct = 0.0, 0
        for k in range(0, n, batch):
            idx = order[k : k + batch]
            xf = torch.as_tensor(x_force[idx], device=device)
            xt = torch.as_tensor(x_torque[idx], device=device)
            y = torch.as_tensor(labels[idx], device=device, dtype=torch.long)
            opt.zero_grad()
            if is_snn:
                out, _ = model(xf, xt)
                loss = loss_fn(out, y, T, double_softmax)
            else:
                out = model(xf, xt)
                loss = nn.functional.cross_entropy(out, y)
            loss.backward()
            opt.step()
            tot_loss += float(loss.detach()) * len(idx)
            correct += int((out.argmax(1) == y).sum())
        sched.step()
        hist.loss.append(tot_loss / n)
        hist.train_acc.append(correct / n)
    if isinstance(model, BarrelSNN):
        model.constrain_()  # the state a forward would see (official clamps at the next forward)
    return hist


@torch.no_grad()
def predict(model: nn.Module, x_force: np.ndarray, x_torque: np.ndarray, batch: int = 128) -> np.ndarray:
    """Predicted classes (N,) int64 (argmax of the summed softmax / of the logits)."""
    device = next(model.parameters()).device
    model.eval()
    preds = []
    for k in range(0, x_force.shape[0], batch):
        xf = torch.as_tensor(x_force[k : k + batch], device=device)
        xt = torch.as_tensor(x_torque[k : k + batch], device=device)
        out = model(xf, xt)
        out = out[0] if isinstance(out, tuple) else out
        preds.append(out.argmax(1).cpu().numpy())
    return np.concatenate(preds)


def accuracy(
    model: nn.Module, x_force: np.ndarray, x_torque: np.ndarray, labels: np.ndarray, batch: int = 128
) -> float:
    """Fraction of correctly classified samples."""
    _check_data(x_force, x_torque, labels)
    return float(np.mean(predict(model, x_force, x_torque, batch) == labels))


__all__ = ["History", "accuracy", "make_optimizer", "predict", "train"]
