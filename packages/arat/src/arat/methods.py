"""ARAT, its baselines and ablations: a registry name -> training config, and ``fit``.

| name        | objective | split BN | invariance                | classification weights |
|-------------|-----------|----------|---------------------------|------------------------|
| ``st``      | clean     | no       | -                         | CE(f(x))               |
| ``at``      | at        | no       | -                         | CE(f(x'))              |
| ``trades``  | trades    | no       | KL, beta = 6              | CE(f(x))               |
| ``naive``   | arat      | no       | symmetric (Eq. 5), gamma  | CE(f(x')) (1, 0)       |
| ``asym``    | arat      | no       | Dist(h(z'), sg z), gamma  | CE(f(x')) (1, 0)       |
| ``splitbn`` | arat      | yes      | none (gamma = 0)          | auto-balanced          |
| ``arat``    | arat      | yes      | Dist(h(z'), sg z), gamma  | auto-balanced          |

``naive`` is the paper's starting point ("AT + invariance regularisation", shared BN), ``asym`` the
stop-gradient + predictor ablation without split BN, ``splitbn`` the split-BN-only ablation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

import torch
from paperkit.validation import check_choice, check_instance, check_seed
from paperkit.vision.common import as_device

from arat.models import backbone
from arat.training import TrainConfig, Trained, train

__all__ = ["METHODS", "MethodInfo", "fit", "method_config"]


@dataclass(frozen=True)
class MethodInfo:
    """A registry entry: the config changes from ``TrainConfig()`` and declared capabilities."""

    description: str
    changes: tuple[tuple[str, Any], ...]
    split_bn: bool = False
    adversarial: bool = True
    invariance: bool = False


METHODS: dict[str, MethodInfo] = {
    "st": MethodInfo("standard (clean) training", (("objective", "clean"),), adversarial=False),
    "at": MethodInfo("PGD adversarial training (Madry et al.)", (("objective", "at"),)),
    "trades": MethodInfo("TRADES, beta = 6", (("objective", "trades"),)),
    "naive": MethodInfo(
        "AT + symmetric invariance, shared BN",
        (
            ("invariance", "symmetric"),
            ("split_bn", False),
            ("auto_balance", False),
            ("w_clean", 0.0),
            ("predictor", False),
        ),
        invariance=True,
    ),
    "asym": MethodInfo(
        "AT + asymmetric invariance with predictor, shared BN",
        (("split_bn", False), ("auto_balance", False), ("w_clean", 0.0)),
        invariance=True,
    ),
    "splitbn": MethodInfo("split BN + auto-balanced CE, no invariance", (("gamma", 0.0),), split_bn=True),
    "arat": MethodInfo(
        "ARAT: split BN + asymmetric invariance + predictor", (), split_bn=True, invariance=True
    ),
}


def method_config(name: str, base: TrainConfig | None = None, **overrides: Any) -> TrainConfig:
    """The ``TrainConfig`` of method ``name``: ``base`` (default ``TrainConfig()``), the method's changes,
    then ``overrides`` (e.g. ``epochs``, ``lr``, ``eps``)."""
    info = METHODS[check_choice(name, "name", tuple(METHODS))]
    if base is not None and not isinstance(base, TrainConfig):
        raise TypeError(f"base must be None or an arat.TrainConfig, got {type(base).__name__}")
    unknown = sorted(set(overrides) - {f.name for f in fields(TrainConfig)})
    if unknown:
        raise TypeError(
            f"unknown TrainConfig field(s) {unknown}; known: {[f.name for f in fields(TrainConfig)]}"
        )
    return replace(base or TrainConfig(), **dict(info.changes), **overrides)


def fit(
    name: str,
    x: torch.Tensor,
    y: torch.Tensor,
    *,
    channels: Sequence[int] = (32, 64, 64, 64),
    arch: str = "strided",
    base: TrainConfig | None = None,
    seed: int = 0,
    device: str | torch.device = "cpu",
    **overrides: Any,
) -> Trained:
    """Build the backbone from ``seed`` (same shared weights for every method) and train method ``name``
    on ``x: (n, 1, 8, 8)`` in [0, 1], ``y: (n,)`` with the same batch order and attack noise for ``seed``."""
    config = method_config(name, base, **overrides)
    seed = check_seed(seed)
    dev = as_device(device)
    for t, label in ((x, "x"), (y, "y")):
        check_instance(t, label, torch.Tensor)
    model = backbone(
        channels=channels,
        arch=arch,
        split_bn=config.split_bn and config.objective == "arat",
        seed=seed,
        device=dev,
    )
    return train(model, x.to(dev), y.to(dev), config, seed=seed)
