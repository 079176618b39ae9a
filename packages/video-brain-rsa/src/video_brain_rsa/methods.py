"""The compared models behind one registry: three tiny video architectures, trained or untrained.

Every entry is ``call(train_video, train_labels, stimuli, *, steps, lr, batch_size, width, seed, device)
-> ModelRun``: build the architecture from ``seed`` (so every task and the untrained copy share the
initial weights), train it on the labels given (``steps = 0``: the untrained copy, the spec's
random-init baseline), and read every layer's features on ``stimuli`` by forward hooks (frame models:
averaged over frames). The task is the labels' meaning (action or object), chosen by the caller.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from paperkit import check_array, check_int, check_seed
from torch import nn

from video_brain_rsa.features import extract
from video_brain_rsa.models import build_model
from video_brain_rsa.training import train

__all__ = ["METHODS", "MethodInfo", "ModelRun", "run_method"]


@dataclass(frozen=True)
class ModelRun:
    """``features`` ``{layer: (S, F)}`` on the stimuli, ``losses`` ``(steps,)``, and the trained ``model``."""

    features: dict[str, np.ndarray]
    losses: np.ndarray
    model: nn.Module


@dataclass(frozen=True)
class MethodInfo:
    """A registry entry: its architecture, whether it models time, its family, and the entry point."""

    arch: str
    temporal: bool
    family: str
    call: Callable[..., ModelRun]


def _method(arch: str) -> Callable[..., ModelRun]:
    def call(
        train_video: np.ndarray, train_labels: np.ndarray, stimuli: np.ndarray, *, steps: int,
        lr: float = 3e-3, batch_size: int = 32, width: int = 8, seed: int, device: str = "cpu",
    ) -> ModelRun:  # fmt: skip
        n = check_array(train_video, "train_video", ndim=5).shape[0]
        check_array(stimuli, "stimuli", ndim=5)
        y = np.asarray(check_array(train_labels, "train_labels", shape=(n,), kind="iu"))
        if y.size == 0 or y.min() < 0:
            raise ValueError("train_labels must be non-empty class indices 0 .. K-1")
        model = build_model(arch, max(int(y.max()) + 1, 2), seed=check_seed(seed), width=width, device=device)
        losses = train(model, train_video, y, steps=check_int(steps, "steps", low=0), lr=lr,
                       batch_size=batch_size, seed=seed + 1, device=device)  # fmt: skip
        mode = "frames" if getattr(model, "per_frame", False) else "video"
        feats = extract(model, stimuli, list(model.LAYERS), mode=mode, device=device)  # type: ignore[arg-type]
        return ModelRun(feats, losses, model)

    return call


METHODS: dict[str, MethodInfo] = {
    "conv3d": MethodInfo("conv3d", True, "video (3-D CNN)", _method("conv3d")),
    "conv2d-temporal": MethodInfo(
        "conv2d-temporal", True, "video (2-D + temporal)", _method("conv2d-temporal")
    ),
    "frame-cnn": MethodInfo("frame-cnn", False, "image (per frame, averaged)", _method("frame-cnn")),
}


def run_method(name: str, *args: object, **kw: object) -> ModelRun:
    """Run the registry entry ``name`` (one of :data:`METHODS`)."""
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, one of {list(METHODS)}, got {type(name).__name__}")
    if name not in METHODS:
        raise ValueError(f"name must be one of {list(METHODS)}, got {name!r}")
    return METHODS[name].call(*args, **kw)
