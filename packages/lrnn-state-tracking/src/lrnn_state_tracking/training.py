"""Training (AdamW, linear warm-up, cosine decay to lr·1e−3 as the xLSTM harness) and length-generalisation
evaluation. Loss and accuracy only at the masked (answer) positions, as in the official harness."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
import torch
from paperkit import resolve_device
from paperkit.validation import check_instance, check_int

from lrnn_state_tracking.models import LRNNLM
from lrnn_state_tracking.tasks import Batch, Task

__all__ = [
    "History",
    "LengthAccuracy",
    "accuracy_by_length",
    "check_device",
    "lr_at",
    "scaled_accuracy",
    "to_torch",
    "train",
]


@dataclass(frozen=True)
class History:
    """loss: ``(steps,)`` training loss per step; seconds: wall time of the loop."""

    loss: np.ndarray
    seconds: float


def check_device(device: str | torch.device) -> str:
    """``device`` as a string this machine can use; an unavailable one (``"cuda"`` without a GPU, an
    unknown name) raises :class:`paperkit.DeviceError` naming it, instead of torch's driver error."""
    check_instance(device, "device", (str, torch.device))
    return resolve_device(str(device))


def lr_at(step: int, steps: int, lr: float, warmup: int, decay_factor: float = 1e-3) -> float:
    """Linear warm-up over ``warmup`` steps, then cosine decay from ``lr`` to ``lr·decay_factor``."""
    if step < warmup:
        return lr * (step + 1) / warmup
    frac = (step - warmup) / max(1, steps - warmup)
    return lr * (decay_factor + (1 - decay_factor) * 0.5 * (1 + math.cos(math.pi * min(frac, 1.0))))


def to_torch(batch: Batch, device: str | torch.device) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(tokens, targets, mask) on ``device``."""
    return (
        torch.as_tensor(batch.tokens, device=device),
        torch.as_tensor(batch.targets, device=device),
        torch.as_tensor(batch.mask, device=device),
    )


def train(
    model: LRNNLM,
    task: Task,
    steps: int,
    *,
    batch: int = 64,
    min_len: int = 3,
    max_len: int = 40,
    lr: float = 3e-3,
    warmup: int = 50,
    weight_decay: float = 0.0,
    grad_clip: float | None = 1.0,
    seed: int = 0,
    device: str | torch.device = "cpu",
    mode: str = "parallel",
) -> History:
    """Train ``model`` in place on fresh batches of ``task`` (data seed ``seed``); returns the loss curve.

    The model's parameters should already be on ``device``. ``mode``: the LRNN layers' form in training,
    ``"parallel"`` or ``"sequential"`` (equal up to rounding; the loop is faster below ~16 steps on a CPU).
    """
    device = check_device(device)
    check_int(steps, "steps", low=1)
    check_int(batch, "batch", low=1)
    if task.vocab_size > model.vocab or task.n_classes != model.n_classes:
        raise ValueError(
            f"model (vocab {model.vocab}, {model.n_classes} classes) does not fit task {task.name!r} "
            f"(vocab {task.vocab_size}, {task.n_classes} classes)"
        )
    rng = np.random.default_rng(seed)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)
    losses = np.empty(steps)
    model.train()
    start = time.perf_counter()
    for step in range(steps):
        for group in opt.param_groups:
            group["lr"] = lr_at(step, steps, lr, warmup)
        tokens, targets, mask = to_torch(task.generate(batch, min_len, max_len, rng), device)
        loss = model.loss(tokens, targets, mask, mode=mode)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        if grad_clip is not None:
            torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
        opt.step()
        losses[step] = float(loss.detach())
    return History(losses, time.perf_counter() - start)


@dataclass(frozen=True)
class LengthAccuracy:
    """Per-sequence results of an evaluation: lengths ``(n,)`` and correct ``(n,)`` (fraction of the
    sequence's scored positions predicted right; 0/1 for answer-at-the-end tasks)."""

    lengths: np.ndarray
    correct: np.ndarray

    @property
    def accuracy(self) -> float:
        return float(self.correct.mean())

    def binned(self, edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(bin centres, mean accuracy per bin) for bins [edges[i], edges[i+1])."""
        idx = np.digitize(self.lengths, edges) - 1
        acc = np.array(
            [self.correct[idx == i].mean() if np.any(idx == i) else np.nan for i in range(len(edges) - 1)]
        )
        return 0.5 * (edges[:-1] + edges[1:]), acc


@torch.no_grad()
def accuracy_by_length(
    model: LRNNLM,
    task: Task,
    min_len: int,
    max_len: int,
    n: int = 1024,
    *,
    seed: int = 10_000,
    batch: int = 128,
    device: str | torch.device = "cpu",
    mode: str = "parallel",
) -> LengthAccuracy:
    """Accuracy at the scored positions on ``n`` fresh sequences with lengths uniform in
    [min_len, max_len], evaluated in batches of similar lengths (sorted) to limit padding."""
    device = check_device(device)
    if max_len > model.context_length:
        raise ValueError(f"max_len {max_len} exceeds the model's context_length {model.context_length}")
    data = task.generate(n, min_len, max_len, np.random.default_rng(seed))
    order = np.argsort(data.lengths, kind="stable")
    model.eval()
    lengths, correct = [], []
    for s in range(0, n, batch):
        idx = order[s : s + batch]
        width = int(data.lengths[idx].max())
        sub = Batch(
            data.tokens[idx, :width], data.targets[idx, :width], data.mask[idx, :width], data.lengths[idx]
        )
        tokens, targets, mask = to_torch(sub, device)
        pred = model(tokens, mode=mode).argmax(-1)
        hit = ((pred == targets) & mask).sum(1).double() / mask.sum(1).double()
        lengths.append(sub.lengths)
        correct.append(hit.cpu().numpy())
    model.train()
    return LengthAccuracy(np.concatenate(lengths), np.concatenate(correct))


def scaled_accuracy(acc: float, n_classes: int) -> float:
    """(acc − 1/K) / (1 − 1/K): 0 at chance, 1 when perfect (the paper's "scaled accuracy")."""
    check_int(n_classes, "n_classes", low=2)
    chance = 1.0 / n_classes
    return (acc - chance) / (1.0 - chance)
