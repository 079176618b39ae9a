"""Tiny video networks for the three factors the paper disentangles (temporal modelling, task, architecture).

Every model maps clips ``(B, T, 3, H, W)`` to logits ``(B, classes)`` and names the layers that RSA reads
(``LAYERS``, input to output; ``pool`` is the global average before the classifier ``fc``):

- :class:`Conv3D`: a 3-D CNN (spatio-temporal kernels from the first layer on; the C3D/I3D family).
- :class:`Conv2DTemporal`: 2-D convolutions per frame, then a temporal convolution ((2+1)-D, the R(2+1)D /
  TSM family of "2-D + temporal" video models).
- :class:`FrameCNN`: an image model, the same 2-D stem applied to each frame with no temporal
  interaction; logits are averaged over frames (the official "score_avg" image-action models) and, for
  RSA, so are its features (``per_frame = True``: :func:`video_brain_rsa.features.extract` averages them).

Widths are small (8-16-32 channels) so that a model trains in seconds on 16 x 16 x 8 clips under one thread.
"""

from __future__ import annotations

import torch
from paperkit import check_choice, check_int, check_seed
from torch import nn

__all__ = ["ARCHITECTURES", "Conv2DTemporal", "Conv3D", "FrameCNN", "build_model", "checked_device"]


def checked_device(device: object, name: str = "device") -> torch.device:
    """``device`` as a ``torch.device`` (``TypeError`` / ``ValueError`` naming ``name`` otherwise)."""
    if not isinstance(device, str | torch.device):
        raise TypeError(f"{name} must be a str or torch.device, got {type(device).__name__}")
    try:
        return torch.device(device)
    except (RuntimeError, ValueError) as e:
        raise ValueError(f"{name} must name a torch device such as 'cpu' or 'cuda', got {device!r}") from e


def _seeded_init(model: nn.Module, seed: int) -> None:
    """Kaiming-uniform weights (torch's default rule) drawn from one explicit generator; zero biases."""
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for mod in model.modules():
            if isinstance(mod, nn.Conv2d | nn.Conv3d | nn.Linear):
                fan_in = mod.weight[0].numel()
                bound = (6.0 / fan_in) ** 0.5  # He uniform for ReLU
                mod.weight.copy_(torch.rand(mod.weight.shape, generator=gen) * 2 * bound - bound)
                if mod.bias is not None:
                    mod.bias.zero_()


def _normalise(x: torch.Tensor) -> torch.Tensor:
    """Fixed input scaling: the rendered pixels lie in [0.2, 1] with mean about 0.5."""
    return (x - 0.5) * 4.0


class Conv3D(nn.Module):
    """conv3d(3->8) pool(1,2,2) conv3d(8->16) pool(2,2,2) conv3d(16->32) pool fc; 3 x 3 x 3 kernels."""

    LAYERS = ("conv1", "conv2", "conv3", "pool", "fc")
    per_frame = False

    def __init__(self, classes: int, width: int = 8) -> None:
        super().__init__()
        w = width
        self.conv1 = nn.Sequential(nn.Conv3d(3, w, 3, padding=1), nn.ReLU(), nn.MaxPool3d((1, 2, 2)))
        self.conv2 = nn.Sequential(nn.Conv3d(w, 2 * w, 3, padding=1), nn.ReLU(), nn.MaxPool3d(2))
        self.conv3 = nn.Sequential(nn.Conv3d(2 * w, 4 * w, 3, padding=1), nn.ReLU())
        self.pool = nn.Flatten()
        self.fc = nn.Linear(4 * w, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.conv3(self.conv2(self.conv1(_normalise(x).transpose(1, 2))))  # (B, C, T, H, W)
        return self.fc(self.pool(h.mean(dim=(2, 3, 4), keepdim=True)))


class Conv2DTemporal(nn.Module):
    """Per-frame conv2d(3->8) pool conv2d(8->16) pool, then a temporal conv (k = 3) 16->32, pool, fc."""

    LAYERS = ("conv1", "conv2", "temporal", "pool", "fc")
    per_frame = False

    def __init__(self, classes: int, width: int = 8) -> None:
        super().__init__()
        w = width
        self.conv1 = nn.Sequential(
            nn.Conv3d(3, w, (1, 3, 3), padding=(0, 1, 1)), nn.ReLU(), nn.MaxPool3d((1, 2, 2))
        )
        self.conv2 = nn.Sequential(
            nn.Conv3d(w, 2 * w, (1, 3, 3), padding=(0, 1, 1)), nn.ReLU(), nn.MaxPool3d((1, 2, 2))
        )
        self.temporal = nn.Sequential(nn.Conv3d(2 * w, 4 * w, (3, 1, 1), padding=(1, 0, 0)), nn.ReLU())
        self.pool = nn.Flatten()
        self.fc = nn.Linear(4 * w, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.temporal(self.conv2(self.conv1(_normalise(x).transpose(1, 2))))
        return self.fc(self.pool(h.mean(dim=(2, 3, 4), keepdim=True)))


class FrameCNN(nn.Module):
    """Image model: conv2d(3->8) pool conv2d(8->16) pool conv2d(16->32) pool fc on each frame; mean logits."""

    LAYERS = ("conv1", "conv2", "conv3", "pool", "fc")
    per_frame = True

    def __init__(self, classes: int, width: int = 8) -> None:
        super().__init__()
        w = width
        self.conv1 = nn.Sequential(nn.Conv2d(3, w, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.conv2 = nn.Sequential(nn.Conv2d(w, 2 * w, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.conv3 = nn.Sequential(nn.Conv2d(2 * w, 4 * w, 3, padding=1), nn.ReLU())
        self.pool = nn.Flatten()
        self.fc = nn.Linear(4 * w, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t = x.shape[:2]
        h = self.conv3(self.conv2(self.conv1(_normalise(x).reshape(b * t, *x.shape[2:]))))
        logits = self.fc(self.pool(h.mean(dim=(2, 3), keepdim=True)))  # (B T, classes)
        return logits.reshape(b, t, -1).mean(dim=1)


ARCHITECTURES: dict[str, type[nn.Module]] = {
    "conv3d": Conv3D,
    "conv2d-temporal": Conv2DTemporal,
    "frame-cnn": FrameCNN,
}


def build_model(arch: str, classes: int, *, seed: int, width: int = 8, device: str = "cpu") -> nn.Module:
    """A fresh ``arch`` model with weights from ``torch.Generator().manual_seed(seed)``, on ``device``."""
    arch = check_choice(arch, "arch", ARCHITECTURES)
    dev = checked_device(device)
    model = ARCHITECTURES[arch](check_int(classes, "classes", low=2), check_int(width, "width", low=1))
    _seeded_init(model, check_seed(seed))
    return model.to(dev)
