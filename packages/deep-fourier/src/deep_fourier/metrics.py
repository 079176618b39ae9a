"""Plasticity diagnostics on a probe batch.

- ``effective_rank(H)`` (Roy & Vetterli 2007): ``exp(-sum p_i log p_i)``, ``p = sigma / sum(sigma)`` over the
  singular values of the ``(n, d)`` feature matrix (1 for a rank-one H, ``d`` for orthogonal equal columns).
- ``dead_unit_fraction``: fraction of hidden units (pre-activations) whose every output feature is exactly
  zero on every probe input (a dead ReLU; a DFF unit cannot be dead: sin z and cos z are never both 0).
- ``hidden_features``: the output of every activation module, by forward hooks.
- ``average_online_accuracy``: the mean over steps of the accuracy on the current batch before the step.
"""

from __future__ import annotations

import numpy as np
import torch
from paperkit import check_array, check_instance
from torch import nn

from deep_fourier.checks import check_inputs, check_module
from deep_fourier.models import ACTIVATIONS

__all__ = ["average_online_accuracy", "dead_unit_fraction", "effective_rank", "hidden_features"]

_EXPANSION: dict[type, int] = {
    spec.factory: spec.expansion for spec in ACTIVATIONS.values() if isinstance(spec.factory, type)
}


def effective_rank(h: torch.Tensor) -> float:
    """Effective rank of an ``(n, d)`` matrix (0 for an all-zero matrix)."""
    check_array(check_instance(h, "h", torch.Tensor), "h", ndim=2)
    if 0 in h.shape:
        raise ValueError(f"h must be non-empty, got shape {tuple(h.shape)}")
    s = torch.linalg.svdvals(h.detach().double())
    if float(s.sum()) == 0.0:
        return 0.0
    p = s / s.sum()
    p = p[p > 0]
    return float(torch.exp(-(p * p.log()).sum()))


@torch.no_grad()
def hidden_features(model: nn.Module, x: torch.Tensor) -> list[tuple[torch.Tensor, int]]:
    """``[(features (n, expansion * k), expansion)]``, one per activation module, in forward order."""
    check_module(model)
    check_inputs(x)
    found: list[tuple[torch.Tensor, int]] = []
    hooks = []
    for m in model.modules():
        e = _EXPANSION.get(type(m))
        if e is not None:
            hooks.append(m.register_forward_hook(lambda _m, _i, out, e=e: found.append((out, e))))
    try:
        model(x)
    finally:
        for h in hooks:
            h.remove()
    return found


def dead_unit_fraction(model: nn.Module, x: torch.Tensor) -> float:
    """Fraction of hidden units that output exactly zero on all of ``x`` (over all hidden layers)."""
    dead, total = 0, 0
    for h, e in hidden_features(model, x):
        per_unit = h.reshape(h.shape[0], e, -1)  # cat([f(z), g(z)]): block j holds branch j of every unit
        dead += int((per_unit == 0).all(dim=0).all(dim=0).sum())
        total += per_unit.shape[2]
    return dead / total if total else 0.0


def average_online_accuracy(batch_accuracy: np.ndarray) -> float:
    """Mean of per-step batch accuracies ``(steps,)`` (or ``(tasks, steps)``: mean over everything)."""
    a = np.asarray(check_array(batch_accuracy, "batch_accuracy", kind="fiub"), dtype=float)
    if a.size and not bool(((a >= 0) & (a <= 1)).all()):
        raise ValueError(f"batch_accuracy must lie in [0, 1], got min {a.min()}, max {a.max()}")
    return float(a.mean()) if a.size else float("nan")
