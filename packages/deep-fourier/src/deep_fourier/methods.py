"""The method (DFF, with and without L2-Init) and its baselines, behind one registry.

Each entry is an activation of :data:`deep_fourier.models.ACTIVATIONS` and a regulariser of
:data:`deep_fourier.regularizers.REGULARIZERS`; ``run_method(name, tasks, ...)`` builds the network from
``seed`` (the same seed, the same tasks and batches for every method: paired) and trains it on the stream.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
from paperkit import check_choice, check_positive
from paperkit.vision.common import as_device

from deep_fourier.checks import check_tasks
from deep_fourier.models import network
from deep_fourier.streams import Task
from deep_fourier.training import History, train_continual

__all__ = ["METHODS", "MethodInfo", "run_method"]


@dataclass(frozen=True)
class MethodInfo:
    """A registry entry: the activation, the regulariser, whether it is the paper's method."""

    activation: str
    reg: str
    is_paper_method: bool
    description: str


METHODS: dict[str, MethodInfo] = {
    "dff+l2init": MethodInfo(
        "dff", "l2_init", True, "DFF combined with L2-Init (the paper's headline variant)"
    ),
    "dff": MethodInfo("dff", "none", True, "DFF alone (Sec. on trainability)"),
    "relu": MethodInfo("relu", "none", False, "ReLU control"),
    "relu+l2init": MethodInfo("relu", "l2_init", False, "ReLU with L2-Init (Kumar et al. 2023)"),
    "crelu": MethodInfo("crelu", "none", False, "concatenated ReLU"),
    "sin": MethodInfo("sin", "none", False, "sine only (ablation of the cosine partner)"),
    "tanh": MethodInfo("tanh", "none", False, "tanh"),
}


def run_method(
    name: str,
    tasks: Sequence[Task],
    *,
    widths: Sequence[int] = (256, 256),
    width_mode: str = "match_features",
    steps_per_task: int,
    batch_size: int = 64,
    lr: float = 1e-3,
    lam: float = 0.0,
    seed: int,
    device: str | torch.device = "cpu",
) -> History:
    """Build the method's MLP (64 -> widths -> 10) from ``seed`` and train it on ``tasks``.

    ``lam`` is the regulariser's strength (ignored by methods without one).
    """
    info = METHODS[check_choice(name, "name", tuple(METHODS))]
    lam = check_positive(lam, "lam", strict=False)  # checked even where the method ignores it
    tasks = check_tasks(tasks)
    dev = as_device(device)
    for t, task in enumerate(tasks):
        if task.x_train.device.type != dev.type:
            raise ValueError(f"device={str(device)!r} but tasks[{t}] is on {task.x_train.device}")
    in_dim = int(tasks[0].x_train.shape[1]) if tasks else 64
    model = network(info.activation, in_dim, widths, 10, width_mode=width_mode, seed=seed, device=device)
    return train_continual(
        model, tasks, steps_per_task=steps_per_task, batch_size=batch_size, lr=lr,
        reg=info.reg, lam=lam if info.reg != "none" else 0.0, seed=seed,
    )  # fmt: skip
