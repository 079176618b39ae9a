"""Argument checks shared by the public entries (messages name the argument; not part of the public names)."""

from __future__ import annotations

from collections.abc import Sequence

import torch
from paperkit import check_array, check_instance
from torch import nn

from deep_fourier.streams import Task

__all__ = ["check_inputs", "check_module", "check_params", "check_tasks"]


def check_module(model: object, name: str = "model", *, need_params: bool = False) -> nn.Module:
    """``model`` is an ``nn.Module`` (with at least one parameter when ``need_params``)."""
    m: nn.Module = check_instance(model, name, nn.Module)  # type: ignore[assignment]
    if need_params and next(m.parameters(), None) is None:
        raise ValueError(f"{name} has no parameters")
    return m


def check_params(params: object, name: str) -> list[torch.Tensor]:
    """A non-empty sequence of tensors."""
    if not isinstance(params, list | tuple):
        raise TypeError(f"{name} must be a list or tuple of tensors, got {type(params).__name__}")
    out = list(params)
    if not out:
        raise ValueError(f"{name} must hold at least one tensor, got none")
    for i, p in enumerate(out):
        check_instance(p, f"{name}[{i}]", torch.Tensor)
    return out


def check_inputs(x: object, name: str = "x") -> torch.Tensor:
    """A finite, non-empty float batch ``(n, ...)`` with ``n >= 1``."""
    t: torch.Tensor = check_instance(x, name, torch.Tensor)  # type: ignore[assignment]
    check_array(t, name, kind="f")
    if t.ndim < 1 or t.shape[0] == 0:
        raise ValueError(f"{name} must hold at least one input, got shape {tuple(t.shape)}")
    return t


def check_tasks(tasks: object, name: str = "tasks", *, model: nn.Module | None = None) -> list[Task]:
    """A sequence of :class:`deep_fourier.streams.Task` with consistent, finite, labelled inputs (whose
    width is the ``in_features`` of ``model``'s first Linear, when given)."""
    if not isinstance(tasks, Sequence) or isinstance(tasks, str | bytes):
        raise TypeError(f"{name} must be a sequence of Task, got {type(tasks).__name__}")
    dims = set()
    for t, task in enumerate(tasks):
        check_instance(task, f"{name}[{t}]", Task)
        x = check_inputs(task.x_train, f"{name}[{t}].x_train")
        if x.ndim != 2:
            raise ValueError(f"{name}[{t}].x_train must be (n, d), got shape {tuple(x.shape)}")
        check_instance(task.y_train, f"{name}[{t}].y_train", torch.Tensor)
        check_array(task.y_train, f"{name}[{t}].y_train", shape=(x.shape[0],), kind="iu")
        dims.add(int(x.shape[1]))
    if len(dims) > 1:
        raise ValueError(f"{name} must share one input width, got widths {sorted(dims)}")
    first = None if model is None else next((m for m in model.modules() if isinstance(m, nn.Linear)), None)
    if dims and first is not None and first.in_features not in dims:
        raise ValueError(f"{name} have {dims.pop()} input features but model takes {first.in_features}")
    return list(tasks)
