"""Small models, initialised from an explicit ``torch.Generator`` (PyTorch's default Linear init)."""

from __future__ import annotations

import math

import torch
from paperkit.validation import check_int
from torch import nn


def _init_linear(layer: nn.Linear, generator: torch.Generator) -> None:
    bound = 1.0 / math.sqrt(layer.in_features)
    with torch.no_grad():
        w = torch.rand(layer.weight.shape, generator=generator, device=generator.device) * 2 - 1
        layer.weight.copy_(w * bound)
        if layer.bias is not None:
            b = torch.rand(layer.bias.shape, generator=generator, device=generator.device) * 2 - 1
            layer.bias.copy_(b * bound)


def mlp(
    d_in: int, hidden: int, d_out: int, *, seed: int = 0, device: str | torch.device = "cpu"
) -> nn.Module:
    """``Linear(d_in, hidden) -> tanh -> Linear(hidden, d_out)``; 64->64->10 has 4 810 parameters."""
    for name, v in (("d_in", d_in), ("hidden", hidden), ("d_out", d_out)):
        check_int(v, name, low=1)
    net = nn.Sequential(nn.Linear(d_in, hidden), nn.Tanh(), nn.Linear(hidden, d_out)).to(device)
    gen = torch.Generator(device=device).manual_seed(seed)
    for layer in net:
        if isinstance(layer, nn.Linear):
            _init_linear(layer, gen)
    return net


def logistic(d_in: int, n_classes: int, *, seed: int = 0, device: str | torch.device = "cpu") -> nn.Module:
    """Multinomial logistic regression ``Linear(d_in, n_classes)`` (softmax in the loss)."""
    net = nn.Linear(d_in, n_classes).to(device)
    _init_linear(net, torch.Generator(device=device).manual_seed(seed))
    return net


__all__ = ["logistic", "mlp"]
