"""Small seeded model factories: an MLP and a BatchNorm CNN for 8x8 / 16x16 images.

Both take an ``activation``: a name from :data:`ACTIVATIONS`, or a zero-argument factory of an ``nn.Module``
together with ``expansion``, the factor by which that module multiplies its input's width (2 for a
concatenated activation such as CReLU ``[relu(z); relu(-z)]`` or a sine/cosine pair; the next layer then
sees ``expansion * width`` features along dim 1).

Initialisation is PyTorch's default (Kaiming-uniform weights, uniform biases), drawn from
``torch.manual_seed(seed)`` inside ``torch.random.fork_rng`` so the global RNG is left as it was; parameters
are created on the CPU and moved to ``device``, so the same seed gives the same weights on every device.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch
from torch import nn

from paperkit.validation import check_bool, check_choice, check_int, check_seed
from paperkit.vision.common import as_device, check_model

__all__ = ["ACTIVATIONS", "NORMS", "count_parameters", "mlp", "small_cnn"]

ACTIVATIONS: dict[str, Callable[[], nn.Module]] = {
    "relu": nn.ReLU,
    "leaky_relu": nn.LeakyReLU,
    "tanh": nn.Tanh,
    "gelu": nn.GELU,
    "identity": nn.Identity,
}
NORMS = ("none", "batch", "layer")

Activation = str | Callable[[], nn.Module]


def check_sizes(sizes: object, name: str) -> list[object]:
    """A list, tuple or range of layer sizes (each then checked as an int)."""
    if not isinstance(sizes, list | tuple | range):
        raise TypeError(f"{name} must be a list or tuple of ints, got {type(sizes).__name__}")
    return list(sizes)


def _activation(activation: Activation, expansion: int) -> tuple[Callable[[], nn.Module], int]:
    if isinstance(activation, str):
        factory = ACTIVATIONS[check_choice(activation, "activation", tuple(ACTIVATIONS))]
        if expansion != 1:
            raise ValueError(
                f"expansion must be 1 for a built-in activation ({activation!r}), got {expansion}"
            )
        return factory, 1
    if not callable(activation):
        raise TypeError(f"activation must be a name or a module factory, got {type(activation).__name__}")
    return activation, check_int(expansion, "expansion", low=1)


def _seeded(build: Callable[[], nn.Module], seed: int, device: str | torch.device) -> nn.Module:
    dev = as_device(device)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(check_seed(seed))
        model = build()
    return model.to(dev)


def mlp(
    in_dim: int,
    widths: Sequence[int],
    out_dim: int,
    *,
    activation: Activation = "relu",
    expansion: int = 1,
    norm: str = "none",
    seed: int = 0,
    device: str | torch.device = "cpu",
) -> nn.Sequential:
    """``Linear -> [norm] -> activation`` per hidden width, then a linear head; input ``(batch, in_dim)``
    (an image batch is flattened first). ``norm`` (``"batch"``/``"layer"``) acts on the pre-activation."""
    in_dim, out_dim = check_int(in_dim, "in_dim", low=1), check_int(out_dim, "out_dim", low=1)
    widths = [check_int(w, f"widths[{i}]", low=1) for i, w in enumerate(check_sizes(widths, "widths"))]
    norm = check_choice(norm, "norm", NORMS)
    factory, mult = _activation(activation, expansion)

    def build() -> nn.Sequential:
        layers: list[nn.Module] = [nn.Flatten()]
        prev = in_dim
        for w in widths:
            layers.append(nn.Linear(prev, w))
            if norm == "batch":
                layers.append(nn.BatchNorm1d(w))
            elif norm == "layer":
                layers.append(nn.LayerNorm(w))
            layers.append(factory())
            prev = w * mult
        layers.append(nn.Linear(prev, out_dim))
        return nn.Sequential(*layers)

    return _seeded(build, seed, device)  # type: ignore[return-value]


def small_cnn(
    in_channels: int = 1,
    n_classes: int = 10,
    *,
    channels: Sequence[int] = (16, 32),
    image_size: int = 8,
    activation: Activation = "relu",
    expansion: int = 1,
    batch_norm: bool = True,
    seed: int = 0,
    device: str | torch.device = "cpu",
) -> nn.Sequential:
    """Blocks ``Conv3x3(pad 1) -> [BatchNorm2d] -> activation -> MaxPool2`` (the pool while the map is >= 4
    wide), then global average pooling and a linear head; input ``(batch, in_channels, s, s)``."""
    in_channels = check_int(in_channels, "in_channels", low=1)
    n_classes = check_int(n_classes, "n_classes", low=1)
    image_size = check_int(image_size, "image_size", low=1)
    channels = [
        check_int(c, f"channels[{i}]", low=1) for i, c in enumerate(check_sizes(channels, "channels"))
    ]
    batch_norm = check_bool(batch_norm, "batch_norm")
    factory, mult = _activation(activation, expansion)

    def build() -> nn.Sequential:
        layers: list[nn.Module] = []
        prev, side = in_channels, image_size
        for c in channels:
            layers.append(nn.Conv2d(prev, c, kernel_size=3, padding=1))
            if batch_norm:
                layers.append(nn.BatchNorm2d(c))
            layers.append(factory())
            if side >= 4:
                layers.append(nn.MaxPool2d(2))
                side //= 2
            prev = c * mult
        layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(prev, n_classes)]
        return nn.Sequential(*layers)

    return _seeded(build, seed, device)  # type: ignore[return-value]


def count_parameters(model: nn.Module) -> int:
    """The number of trainable scalars."""
    check_model(model)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
