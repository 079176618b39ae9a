"""The backbone for 8x8 digits, with ARAT's split BatchNorm on request.

``"strided"`` (the default, the spec's CNN): four ``Conv3x3 -> BN -> ReLU`` blocks, stride 2 in the second
(8 -> 8 -> 4 -> 4 -> 4), global average pooling and a linear head. ``"pooled"``: paperkit.vision's
``small_cnn`` (max-pooled after the first two blocks). The invariance taps are the BatchNorm outputs of the
last two blocks (then ReLU and GAP): the analogue of ResNet-18's ``layer4.*.bn*`` taps in the official
script (the last stage)."""

from __future__ import annotations

from collections.abc import Sequence

import torch
from paperkit.validation import check_bool, check_choice, check_instance, check_int, check_seed
from paperkit.vision import small_cnn
from paperkit.vision.common import as_device
from torch import nn

from arat.layers import split_batchnorm

__all__ = ["ARCHS", "backbone", "check_channels", "default_layers", "strided_cnn"]


ARCHS = ("strided", "pooled")


def check_channels(channels: object) -> list[int]:
    """A non-empty sequence of channel counts >= 1."""
    if isinstance(channels, str) or not isinstance(channels, Sequence) or not channels:
        raise TypeError(f"channels must be a non-empty sequence of channel counts, got {channels!r}")
    return [check_int(c, f"channels[{i}]", low=1) for i, c in enumerate(channels)]


def strided_cnn(
    channels: Sequence[int] = (32, 64, 64, 64), *, seed: int = 0, device: str | torch.device = "cpu"
) -> nn.Sequential:
    """The spec's CNN: ``Conv3x3 -> BN -> ReLU`` blocks, stride 2 in the second (8 -> 8 -> 4 -> 4 -> 4),
    GAP and a linear head; PyTorch's default init drawn from ``seed`` (the global RNG is left alone)."""
    chans = check_channels(channels)
    device = as_device(device)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(check_seed(seed))
        layers: list[nn.Module] = []
        prev = 1
        for i, c in enumerate(chans):
            layers += [
                nn.Conv2d(prev, c, 3, stride=2 if i == 1 else 1, padding=1),
                nn.BatchNorm2d(c),
                nn.ReLU(),
            ]
            prev = c
        layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(prev, 10)]
        model = nn.Sequential(*layers)
    return model.to(device)


def backbone(
    *,
    channels: Sequence[int] = (32, 64, 64, 64),
    arch: str = "strided",
    split_bn: bool = True,
    seed: int = 0,
    device: str | torch.device = "cpu",
) -> nn.Module:
    """The CNN for ``(batch, 1, 8, 8)`` digits, 10 classes: ``"strided"`` (the spec's) or ``"pooled"``
    (paperkit.vision's ``small_cnn``, max-pooled); the same ``seed`` gives the same shared weights with or
    without split BN (both branches start from the same BatchNorm)."""
    arch = check_choice(arch, "arch", ARCHS)
    channels, device = check_channels(channels), as_device(device)
    if arch == "pooled":
        model = small_cnn(1, 10, channels=channels, image_size=8, seed=seed, device=device)
    else:
        model = strided_cnn(channels, seed=seed, device=device)
    return split_batchnorm(model) if check_bool(split_bn, "split_bn") else model


def default_layers(model: nn.Module, n: int = 2) -> tuple[str, ...]:
    """The names of the last ``n`` normalisation layers (split or plain BatchNorm2d) of ``model``."""
    from arat.layers import SplitBatchNorm2d

    check_instance(model, "model", nn.Module)
    n = check_int(n, "n", low=1)
    names = [name for name, m in model.named_modules() if isinstance(m, SplitBatchNorm2d | nn.BatchNorm2d)]
    names = [n_ for n_ in names if not n_.endswith(tuple(f".bns.{b}" for b in ("adv", "clean")))]
    if n > len(names):
        raise ValueError(f"n must be at most the model's {len(names)} BatchNorm2d layers, got {n}")
    return tuple(names[-n:])
