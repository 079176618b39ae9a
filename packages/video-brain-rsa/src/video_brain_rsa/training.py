"""Training the tiny video models: Adam on mean cross-entropy, mini-batches from an explicit generator.

``train(model, clips, labels, steps, lr, batch_size, seed)`` takes ``steps`` Adam steps (paperkit's
bit-for-bit torch Adam, without the dynamo import of ``torch.optim``) on batches drawn by a fresh
permutation per epoch from ``torch.Generator().manual_seed(seed)``; :func:`accuracy` evaluates in
``eval()`` mode.
"""

from __future__ import annotations

import numpy as np
import torch
from paperkit import check_array, check_instance, check_int, check_positive, check_seed
from paperkit.optim import Adam
from torch import nn

from video_brain_rsa.models import checked_device

__all__ = ["accuracy", "predict", "train"]


def _tensors(
    model: object, clips: np.ndarray, labels: np.ndarray, device: str
) -> tuple[torch.Tensor, torch.Tensor]:
    check_instance(model, "model", nn.Module)
    v = check_array(clips, "clips", ndim=5)
    y = np.asarray(check_array(labels, "labels", shape=(v.shape[0],), kind="iu"))
    if y.size and y.min() < 0:
        raise ValueError(f"labels must be class indices >= 0, got minimum {int(y.min())}")
    device = str(checked_device(device))
    return torch.as_tensor(np.asarray(v), dtype=torch.float32, device=device), torch.as_tensor(
        y, device=device
    )


def train(
    model: nn.Module,
    clips: np.ndarray,
    labels: np.ndarray,
    *,
    steps: int,
    lr: float = 3e-3,
    batch_size: int = 64,
    seed: int,
    device: str = "cpu",
) -> np.ndarray:
    """Train ``model`` in place; returns the ``(steps,)`` training losses."""
    x, y = _tensors(model, clips, labels, device)
    steps = check_int(steps, "steps", low=0)
    batch_size = check_int(batch_size, "batch_size", low=1)
    opt = Adam(list(model.parameters()), lr=check_positive(lr, "lr"))
    gen = torch.Generator().manual_seed(check_seed(seed))
    n, losses, order, pos = x.shape[0], np.zeros(steps), torch.randperm(x.shape[0], generator=gen), 0
    if steps and y.numel():
        model.eval()
        with torch.no_grad():  # one eval-mode forward: no state or random draw is touched
            classes = model(x[:1]).shape[1]
        if int(y.max()) >= classes:
            raise ValueError(f"labels must be < the model's {classes} classes, got maximum {int(y.max())}")
    model.train()
    for k in range(steps):
        if pos + batch_size > n:
            order, pos = torch.randperm(n, generator=gen), 0
        idx = order[pos : pos + batch_size].to(device)
        pos += batch_size
        loss = nn.functional.cross_entropy(model(x[idx]), y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses[k] = float(loss.detach())
    model.eval()
    return losses


def predict(model: nn.Module, clips: np.ndarray, *, batch_size: int = 256, device: str = "cpu") -> np.ndarray:
    """``(n,)`` argmax class of ``model`` on ``clips`` ``(n, T, C, H, W)``, in ``eval()`` mode."""
    v = torch.as_tensor(np.asarray(check_array(clips, "clips", ndim=5)), dtype=torch.float32, device=device)
    model.eval()
    with torch.no_grad():
        out = [model(v[a : a + batch_size]).argmax(dim=1) for a in range(0, v.shape[0], batch_size)]
    return torch.cat(out).cpu().numpy()


def accuracy(model: nn.Module, clips: np.ndarray, labels: np.ndarray, *, device: str = "cpu") -> float:
    """Fraction of ``clips`` whose predicted class equals ``labels``."""
    n = check_array(clips, "clips", ndim=5).shape[0]
    y = np.asarray(check_array(labels, "labels", shape=(n,), kind="iu"))
    check_instance(model, "model", nn.Module)
    return float(np.mean(predict(model, clips, device=device) == y))
