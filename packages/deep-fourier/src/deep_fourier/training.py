"""Sequential training over a task stream with the optimiser state carried across tasks (no resets).

Per task: ``steps_per_task`` Adam steps on minibatches of ``batch_size`` indices drawn *with replacement*
from the task's training set (a ``torch.Generator`` seeded from ``seed`` and the task index, so every
method sees the same batches), loss = mean cross-entropy + the regulariser (its gradient added in closed
form). Recorded per task: the online accuracy (each batch's accuracy before its step, averaged over the
task), the end-of-task accuracy on the whole task training set (trainability) and test set
(generalisation), and the diagnostics of :mod:`deep_fourier.metrics` on a probe of up to ``probe_size``
training inputs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from paperkit import check_int, check_positive, check_seed, torch_threads
from paperkit.optim import Adam
from paperkit.vision import evaluate
from torch import nn

from deep_fourier.checks import check_module, check_tasks
from deep_fourier.metrics import dead_unit_fraction, effective_rank, hidden_features
from deep_fourier.regularizers import REGULARIZERS
from deep_fourier.streams import Task

__all__ = ["History", "train_continual"]


@dataclass(frozen=True)
class History:
    """Per-task records, each ``(n_tasks,)`` float64 (``test_accuracy`` NaN for tasks without a test
    set); ``online_curve`` is ``(n_tasks, n_chunks)``: the online accuracy in equal slices of a task."""

    online_accuracy: np.ndarray
    train_accuracy: np.ndarray
    test_accuracy: np.ndarray
    loss: np.ndarray
    effective_rank: np.ndarray
    dead_fraction: np.ndarray
    weight_norm: np.ndarray
    distance_from_init: np.ndarray
    online_curve: np.ndarray
    n_parameters: int

    @property
    def n_tasks(self) -> int:
        return len(self.train_accuracy)


def _norms(params: Sequence[torch.Tensor], init: Sequence[torch.Tensor]) -> tuple[float, float]:
    w = torch.stack([p.detach().square().sum() for p in params]).sum().sqrt()
    d = torch.stack([(p.detach() - q).square().sum() for p, q in zip(params, init, strict=True)]).sum().sqrt()
    return float(w), float(d)


def _diagnostics(model: nn.Module, probe: torch.Tensor) -> tuple[float, float]:
    feats = hidden_features(model, probe)
    rank = effective_rank(feats[-1][0]) if feats else float("nan")  # penultimate features
    return rank, dead_unit_fraction(model, probe)


def _steps(
    model: nn.Module,
    opt: Adam,
    xs: torch.Tensor,
    ys: torch.Tensor,
    params: Sequence[torch.Tensor],
    anchor: Sequence[torch.Tensor] | None,
    lam: float,
) -> tuple[np.ndarray, float]:
    """One Adam step per batch ``xs[s]`` (sequential by nature); returns per-step accuracy and mean loss."""
    S, B = ys.shape
    preds = torch.empty((S, B), dtype=torch.int64, device=xs.device)
    losses = []
    for s in range(S):
        logits = model(xs[s])
        loss = nn.functional.cross_entropy(logits, ys[s])
        opt.zero_grad()
        loss.backward()
        if anchor is not None:  # + the gradient of lam ||theta - anchor||^2, without autograd
            with torch.no_grad():
                for p, p0 in zip(params, anchor, strict=True):
                    p.grad.add_(p - p0, alpha=2 * lam)  # type: ignore[union-attr]
        opt.step()
        torch.argmax(logits.detach(), 1, out=preds[s])  # compared once per task, below
        losses.append(loss.detach())
    acc = (preds == ys).double().mean(1).cpu().numpy()
    return acc, float(torch.stack(losses).mean())


def train_continual(
    model: nn.Module,
    tasks: Sequence[Task],
    *,
    steps_per_task: int,
    batch_size: int = 64,
    lr: float = 1e-3,
    reg: str = "none",
    lam: float = 0.0,
    seed: int = 0,
    probe_size: int = 512,
    n_chunks: int = 5,
) -> History:
    """Train ``model`` in place on ``tasks`` in order; return the per-task :class:`History`.

    ``reg``/``lam``: the regulariser of :mod:`deep_fourier.regularizers` (``l2_init`` pulls toward the
    parameters ``model`` has when this is called). Runs on one torch thread, on the model's device.
    """
    tasks = check_tasks(tasks, model=check_module(model, need_params=True))
    S = check_int(steps_per_task, "steps_per_task", low=1)
    B = check_int(batch_size, "batch_size", low=1)
    lr = check_positive(lr, "lr")
    lam = check_positive(lam, "lam", strict=False)
    if reg not in REGULARIZERS:
        raise ValueError(f"reg must be one of {REGULARIZERS}, got {reg!r}")
    seed = check_seed(seed)
    probe_size = check_int(probe_size, "probe_size", low=1)
    n_chunks = min(check_int(n_chunks, "n_chunks", low=1), S)
    params = [p for p in model.parameters() if p.requires_grad]
    init = [p.detach().clone() for p in params]
    # the regulariser's gradient 2 lam (theta - anchor): anchor theta_0 for l2_init, 0 for l2 (the same
    # gradient as autograd through regularizers.penalty; tested)
    anchor = (
        None
        if reg == "none" or lam == 0
        else init
        if reg == "l2_init"
        else [torch.zeros_like(p) for p in init]
    )
    opt = Adam(params, lr=lr)
    rec: dict[str, list[float]] = {k: [] for k in ("on", "tr", "te", "loss", "rank", "dead", "w", "d")}
    curves = []
    with torch_threads(1):
        for t, task in enumerate(tasks):
            x, y = task.x_train, task.y_train
            gen = torch.Generator(device=x.device).manual_seed(seed * 100_003 + t)
            batches = torch.randint(0, len(x), (S, B), generator=gen, device=x.device)
            xs, ys = x[batches], y[batches]  # (S, B, d), (S, B): one gather per task
            acc, loss = _steps(model, opt, xs, ys, params, anchor, lam)
            curves.append([c.mean() for c in np.array_split(acc, n_chunks)])
            rec["on"].append(float(acc.mean()))
            rec["loss"].append(loss)
            rec["tr"].append(evaluate(model, x, y))
            has_test = task.x_test is not None and task.y_test is not None and len(task.y_test) > 0
            rec["te"].append(evaluate(model, task.x_test, task.y_test) if has_test else float("nan"))  # type: ignore[arg-type]
            rank, dead = _diagnostics(model, x[:probe_size])
            rec["rank"].append(rank)
            rec["dead"].append(dead)
            w, d = _norms(params, init)
            rec["w"].append(w)
            rec["d"].append(d)
    r = {k: np.asarray(v, dtype=float) for k, v in rec.items()}
    return History(
        r["on"], r["tr"], r["te"], r["loss"], r["rank"], r["dead"], r["w"], r["d"],
        np.asarray(curves, dtype=float).reshape(len(tasks), n_chunks), sum(p.numel() for p in params),
    )  # fmt: skip
