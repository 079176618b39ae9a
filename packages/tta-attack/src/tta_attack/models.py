"""The victim backbone: a BatchNorm CNN on 16x16 digits, its pooled penultimate feature, and MedBN.

- ``source_model``: paperkit.vision's ``small_cnn`` (``Conv3x3 -> BN -> ReLU -> MaxPool`` blocks, global
  average pooling, a linear head), trained on clean digits with Adam (``train_source``). ``robust=True``
  trains it with shift / noise / cutout augmentation: our analogue of the corruption-robust AugMix
  source model the official code swaps in as a defence (``DIA.ADV_MODEL``).
- ``features_logits(model, x)``: ``(phi, f)`` with ``phi`` the pooled penultimate feature, the output of the
  global average pool (the official FCA hooks ``avgpool``; tta-attack-official.md section 3.1), and
  ``f = head(phi)`` the logits.
- ``MedianBatchNorm2d`` (MedBN, Park et al., CVPR 2024): per channel, the batch median ``m`` over
  ``(N, H, W)`` replaces the mean and ``median((x - m)^2)`` replaces the variance; momentum 1 (only the
  current batch), so one malicious sample moves neither statistic much.
"""

from __future__ import annotations

import copy
from functools import partial

import torch
from paperkit.validation import check_bool, check_instance, check_int, check_seed
from paperkit.vision import add_noise, compose, cutout, random_shift, small_cnn, train_epochs
from torch import nn

__all__ = [
    "NORM_TYPES",
    "MedianBatchNorm2d",
    "check_bn_model",
    "features_logits",
    "norm_layers",
    "source_model",
    "split_head",
    "with_median_bn",
]


class MedianBatchNorm2d(nn.Module):
    """BatchNorm2d with median statistics of the current batch: ``y = w (x - m) / sqrt(v + eps) + b``,
    ``m = median_{n,h,w} x``, ``v = median_{n,h,w} (x - m)^2`` (per channel; no running statistics)."""

    def __init__(self, num_features: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.num_features, self.eps = num_features, eps
        self.weight = nn.Parameter(torch.ones(num_features))
        self.bias = nn.Parameter(torch.zeros(num_features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        flat = x.transpose(0, 1).reshape(x.shape[1], -1)
        m = flat.median(dim=1).values
        v = (flat - m[:, None]).square().median(dim=1).values
        scale = self.weight / torch.sqrt(v + self.eps)
        return (x - m[None, :, None, None]) * scale[None, :, None, None] + self.bias[None, :, None, None]


NORM_TYPES: tuple[type[nn.Module], ...] = (nn.BatchNorm1d, nn.BatchNorm2d, MedianBatchNorm2d)


def norm_layers(model: nn.Module) -> list[nn.Module]:
    """The model's batch-normalisation layers (BatchNorm or MedBN), in module order."""
    return [m for m in model.modules() if isinstance(m, NORM_TYPES)]


def check_bn_model(model: object, name: str = "model") -> nn.Module:
    """``model`` must be an ``nn.Module`` with at least one BatchNorm (or MedBN) layer."""
    m: nn.Module = check_instance(model, name, nn.Module)  # type: ignore[assignment]
    if not norm_layers(m):
        raise ValueError(
            f"{name} has no BatchNorm layer: a batch-statistics victim (and the attack on it) needs one"
        )
    return m


def split_head(model: object, name: str = "model") -> tuple[nn.Module, nn.Linear]:
    """``(body, head)`` of an ``nn.Sequential`` whose last module is the linear classifier."""
    m = check_instance(model, name, nn.Module)
    if not isinstance(m, nn.Sequential) or not isinstance(m[-1], nn.Linear):
        raise TypeError(
            f"{name} must be an nn.Sequential ending in an nn.Linear head, got {type(m).__name__}"
        )
    return m[:-1], m[-1]


def features_logits(model: nn.Module, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``(phi (batch, d), logits (batch, classes))``: the pooled penultimate feature and the head's output."""
    body, head = split_head(model)
    phi = body(x)
    return phi, head(phi)


def with_median_bn(model: nn.Module) -> nn.Module:
    """A copy of ``model`` with every ``BatchNorm2d`` replaced by MedBN with the same affine parameters."""
    check_bn_model(model)
    out = copy.deepcopy(model)
    for parent in list(out.modules()):
        for key, child in list(parent.named_children()):
            if isinstance(child, nn.BatchNorm2d):
                med = MedianBatchNorm2d(child.num_features, eps=child.eps).to(child.weight.device)
                with torch.no_grad():
                    med.weight.copy_(child.weight)
                    med.bias.copy_(child.bias)
                setattr(parent, key, med)
    return out


def source_model(
    x: torch.Tensor,
    y: torch.Tensor,
    *,
    channels: tuple[int, ...] = (32, 64),
    epochs: int = 25,
    lr: float = 1e-3,
    batch_size: int = 64,
    robust: bool = False,
    seed: int = 0,
    device: str | torch.device = "cpu",
) -> nn.Sequential:
    """A BatchNorm CNN trained on ``(x (n, 1, s, s) in [0, 1], y)`` with Adam; returned in ``eval()`` mode.

    Spec: conv 32-64, Adam 1e-3, 25 epochs. ``robust``: trained under random shifts (1 px), Gaussian
    noise (std 0.1) and 4x4 cutout, drawn from the epoch generator.
    """
    seed, robust = check_seed(seed), check_bool(robust, "robust")
    epochs = check_int(epochs, "epochs", low=0)
    model = small_cnn(1, 10, channels=channels, image_size=int(x.shape[-1]), seed=seed, device=device)
    augment = (
        compose(
            partial(random_shift, max_shift=1),
            partial(add_noise, std=0.1, clip=(0.0, 1.0)),
            partial(cutout, size=4),
        )
        if robust
        else None
    )
    train_epochs(model, x, y, epochs=epochs, batch_size=batch_size, lr=lr, augment=augment, seed=seed)
    return model.eval()
