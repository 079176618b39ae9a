"""Continual-learning task sequences on the 8x8 digits (features in [0, 1], flattened to 64).

- ``random_labels`` (trainability probe; Kumar et al. 2023, Lyle et al. 2023): a fixed subset of ``n``
  training images; each task draws fresh uniform labels in 0..9. No test set (memorisation only).
- ``permuted``: every task applies a fresh fixed pixel permutation to the train and test images.
- ``label_noise`` (the paper's "label noise" scenario, diminishing): task ``t = 1..T`` replaces a fraction
  ``max_noise * (1 - t / T)`` of the training labels by uniform random labels; the test labels stay clean.
- ``class_incremental``: classes (in a seeded order) arrive in ``T`` groups; task ``t`` trains and tests on
  every class seen so far.

Randomness only from ``seed`` (numpy ``default_rng``): the same seed gives every method the same tasks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from paperkit import check_choice, check_instance, check_int, check_probability, check_seed
from paperkit.vision import ImageSplit

__all__ = ["STREAMS", "Task", "make_stream"]

STREAMS = ("random_labels", "permuted", "label_noise", "class_incremental")


@dataclass(frozen=True)
class Task:
    """One task: ``x_train (n, 64)`` float32, ``y_train (n,)`` int64; ``x_test``/``y_test`` or None."""

    x_train: torch.Tensor
    y_train: torch.Tensor
    x_test: torch.Tensor | None = None
    y_test: torch.Tensor | None = None
    name: str = ""


def _random_labels(data: ImageSplit, T: int, rng: np.random.Generator, n: int) -> list[Task]:
    n = check_int(n, "n", low=1, high=data.n)
    idx = torch.as_tensor(rng.choice(data.n, size=n, replace=False), device=data.x_train.device)
    x = data.x_train[idx]
    return [
        Task(x, torch.as_tensor(rng.integers(0, 10, n), device=x.device), name=f"random labels {t}")
        for t in range(T)
    ]


def _permuted(data: ImageSplit, T: int, rng: np.random.Generator) -> list[Task]:
    d, dev = data.x_train.shape[1], data.x_train.device
    out = []
    for t in range(T):
        perm = torch.as_tensor(rng.permutation(d), device=dev)
        out.append(Task(data.x_train[:, perm], data.y_train, data.x_test[:, perm], data.y_test, f"perm {t}"))
    return out


def _label_noise(data: ImageSplit, T: int, rng: np.random.Generator, max_noise: float) -> list[Task]:
    max_noise = check_probability(max_noise, "max_noise")
    out, dev = [], data.x_train.device
    for t in range(1, T + 1):
        rate = max_noise * (1 - t / T)
        y = data.y_train.clone()
        flip = torch.as_tensor(rng.random(data.n) < rate, device=dev)
        noisy = torch.as_tensor(rng.integers(0, 10, data.n), device=dev)
        out.append(
            Task(data.x_train, torch.where(flip, noisy, y), data.x_test, data.y_test, f"noise {rate:.2f}")
        )
    return out


def _class_incremental(data: ImageSplit, T: int, rng: np.random.Generator) -> list[Task]:
    if T > 10:
        raise ValueError(f"n_tasks must be <= 10 for class_incremental (10 classes), got {T}")
    order = rng.permutation(10)
    out = []
    for t in range(1, T + 1):
        seen = torch.as_tensor(order[: round(10 * t / T)], device=data.y_train.device)
        tr, te = torch.isin(data.y_train, seen), torch.isin(data.y_test, seen)
        out.append(
            Task(data.x_train[tr], data.y_train[tr], data.x_test[te], data.y_test[te], f"{len(seen)} cls")
        )
    return out


def make_stream(
    scenario: str, data: ImageSplit, *, n_tasks: int, seed: int, n: int = 512, max_noise: float = 0.9
) -> list[Task]:
    """The ``n_tasks`` tasks of ``scenario`` (one of :data:`STREAMS`) built from a flattened digits split.

    ``n``: the memorised subset of ``random_labels``; ``max_noise``: the first-task noise scale of
    ``label_noise``. ``n_tasks = 0`` gives an empty stream.
    """
    scenario = check_choice(scenario, "scenario", STREAMS)
    T = check_int(n_tasks, "n_tasks", low=0)
    check_instance(data, "data", ImageSplit)
    if data.x_train.ndim != 2:
        raise ValueError(f"data must be flattened (n, d) (load_digits(flatten=True)), got {data.shape}")
    rng = np.random.default_rng(check_seed(seed))
    if scenario == "random_labels":
        return _random_labels(data, T, rng, n)
    if scenario == "permuted":
        return _permuted(data, T, rng)
    if scenario == "label_noise":
        return _label_noise(data, T, rng, max_noise)
    return _class_incremental(data, T, rng)
