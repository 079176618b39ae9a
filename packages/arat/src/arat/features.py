"""Feature taps: the activations the invariance loss compares (official ``models/feature_extractor.py``).

For each tapped layer ``l`` (a module name of the model, e.g. a BatchNorm's), the feature is

    z^l = GAP(ReLU(out_l))      (batch, channels)   with relu=True, avg_pool=True (the official defaults)

taken from a forward hook, so the model's own forward is unchanged. With split BN the hook sees the
output of the active branch. A feature map of spatial size 1 makes the pooling a reshape.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from paperkit.validation import check_bool, check_instance, check_strings
from torch import nn

from arat.checks import check_batch

__all__ = ["check_layers", "forward_features", "layer_names", "tapped_forward"]


def layer_names(model: nn.Module) -> list[str]:
    """Every named submodule of ``model`` (what a tap may name)."""
    check_instance(model, "model", nn.Module)
    return [n for n, _ in model.named_modules() if n]


def check_layers(model: nn.Module, layers: Sequence[str]) -> tuple[str, ...]:
    """``layers`` as a tuple, each a submodule of ``model``; else ValueError listing the available names."""
    if isinstance(layers, str) or not isinstance(layers, Sequence):
        raise TypeError(f"layers must be a non-empty sequence of module names, got {layers!r}")
    if not layers:
        raise ValueError("layers must be a non-empty sequence of module names, got an empty one")
    check_strings(layers, "layers")
    names = layer_names(model)
    missing = [name for name in layers if name not in names]
    if missing:
        raise ValueError(f"layers {missing} are not modules of the model; available: {names}")
    return tuple(layers)


def forward_features(
    model: nn.Module, x: torch.Tensor, layers: Sequence[str], *, relu: bool = True, avg_pool: bool = True
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """Kernel of :func:`tapped_forward` (no checks): ``(logits, {layer: feature})``."""
    modules = dict(model.named_modules())
    feats: dict[str, torch.Tensor] = {}
    handles = []
    for name in layers:

        def hook(_m: nn.Module, _i: object, out: torch.Tensor, name: str = name) -> None:
            z = torch.relu(out) if relu else out
            if avg_pool and z.ndim == 4:
                z = z.mean(dim=(2, 3))
            feats[name] = z.flatten(1)

        handles.append(modules[name].register_forward_hook(hook))
    try:
        logits = model(x)
    finally:
        for h in handles:
            h.remove()
    return logits, feats


def tapped_forward(
    model: nn.Module, x: torch.Tensor, layers: Sequence[str], *, relu: bool = True, avg_pool: bool = True
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """``(logits (batch, classes), {layer: (batch, d_l) feature})`` for ``x: (batch, c, h, w)``."""
    check_instance(model, "model", nn.Module)
    check_batch(x, "x", model=model, pixels=False)
    layers = check_layers(model, layers)
    return forward_features(
        model, x, layers, relu=check_bool(relu, "relu"), avg_pool=check_bool(avg_pool, "avg_pool")
    )
