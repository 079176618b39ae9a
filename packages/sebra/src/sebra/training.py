"""The network (encoder + linear head) and the supervised trainers shared by every method.

- :class:`Net`: paperkit.vision's BatchNorm CNN (spec: 16-32-64 channels, max-pool, global average pooling,
  a 64-d feature) split into ``encoder`` and ``head`` (stage 2 of Sebra trains ``head`` on the encoder's
  features, as the official code swaps ``fc`` for ``Identity`` and adds a linear head).
- :func:`train_classifier`: epochs of minibatch Adam on (a) the mean cross-entropy over a shuffled pass
  (ERM), (b) the same over ``n`` draws with replacement from ``sample_weights`` (JTT's up-sampling), or (c)
  the online GroupDRO objective ``sum_g q_g L_g`` with ``q_g <- q_g exp(eta L_g)`` renormalised (Sagawa et
  al. 2020; ``eta`` = ``groupdro_robust_step_size`` 0.01 of the official code). Model selection: the epoch
  with the best validation average accuracy (no group labels; spec "Ambiguities").
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from paperkit import check_array, check_instance, check_int, check_positive, check_seed, torch_threads
from paperkit.vision import small_cnn
from paperkit.vision.common import as_device, check_model
from paperkit.vision.common import check_labels as check_label_vector
from torch import nn

__all__ = [
    "Net",
    "Trained",
    "accuracy_of",
    "build_net",
    "check_batch",
    "check_val",
    "check_vector",
    "draw_indices",
    "predict_proba",
    "train_classifier",
]

CHANNELS = (16, 32, 64)  # spec: CNN 16-32-64 channels, 64-d feature


class Net(nn.Module):
    """``head(encoder(x))``; ``encoder: (b, 1, 16, 16) -> (b, d)``, ``head: (b, d) -> (b, C)``."""

    def __init__(self, encoder: nn.Module, head: nn.Module) -> None:
        super().__init__()
        self.encoder, self.head = check_model(encoder, "encoder"), check_model(head, "head")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.encoder(x))


def build_net(
    n_classes: int = 2, *, channels: Sequence[int] = CHANNELS, seed: int, device: str | torch.device = "cpu"
) -> Net:
    """A freshly initialised :class:`Net` (PyTorch's default init drawn from ``seed``)."""
    n_classes, device = check_int(n_classes, "n_classes", low=2), as_device(device)
    cnn = small_cnn(1, n_classes, channels=tuple(channels), image_size=16, seed=seed, device=device)
    layers = list(cnn.children())
    return Net(nn.Sequential(*layers[:-1]), layers[-1])


@dataclass(frozen=True)
class Trained:
    """A trained network and its per-epoch validation accuracy (``val_acc (epochs,)``; empty if no val)."""

    model: Net
    val_acc: np.ndarray
    best_epoch: int


@torch.no_grad()
def predict_proba(model: nn.Module, x: torch.Tensor, *, batch_size: int = 1024) -> torch.Tensor:
    """Softmax probabilities ``(n, C)`` in eval mode (the mode is restored)."""
    model = check_model(model)
    x = check_batch(x, "x")
    batch_size = check_int(batch_size, "batch_size", low=1)
    was = model.training
    model.eval()
    try:
        return torch.cat([model(xb).softmax(1) for xb in x.split(batch_size)])
    finally:
        model.train(was)


def accuracy_of(model: nn.Module, x: torch.Tensor, y: torch.Tensor) -> float:
    return float((predict_proba(model, x).argmax(1) == y).float().mean())


def check_batch(x: object, name: str) -> torch.Tensor:
    """``x`` must be a finite, non-empty float ``(n, ...)`` tensor (:class:`Net` takes ``(n, 1, h, w)``)."""
    t = check_array(check_instance(x, name, torch.Tensor), name, kind="f")
    if t.ndim < 2 or len(t) == 0:
        raise ValueError(f"{name} must be a non-empty float (n, ...) tensor, got shape {tuple(t.shape)}")
    return t


def check_vector(v: object, name: str, n: int, *, kind: str) -> torch.Tensor:
    """``v`` must be a finite torch vector of ``n`` entries of dtype kind ``kind`` (``"f"``, ``"i"``...)."""
    t = check_array(check_instance(v, name, torch.Tensor), name, kind=kind)
    if t.shape != (n,):
        raise ValueError(f"{name} must be a vector of {n} entries (one a sample), got shape {tuple(t.shape)}")
    return t


def check_val(val: object, name: str = "val") -> tuple[torch.Tensor, torch.Tensor] | None:
    """``None`` or a pair ``(x, y)``: float images and their int64 labels."""
    if val is None:
        return None
    if not isinstance(val, tuple | list) or len(val) != 2:
        raise TypeError(f"{name} must be None or a pair (x, y) of tensors, got {type(val).__name__}")
    x = check_batch(val[0], f"{name}[0]")
    return x, check_label_vector(val[1], len(x), f"{name}[1]")


def draw_indices(n: int, weights: torch.Tensor | None, generator: torch.Generator) -> torch.Tensor:
    """One epoch's order: a permutation of ``n`` (no weights), else ``n`` draws with replacement from
    ``weights`` (torch's WeightedRandomSampler, as the official code's loaders)."""
    if weights is None:
        return torch.randperm(n, generator=generator, device=generator.device)
    return torch.multinomial(weights, n, replacement=True, generator=generator)


class Selector:
    """Keeps the state of the epoch with the best validation accuracy (first one on ties)."""

    def __init__(self, model: nn.Module, val: tuple[torch.Tensor, torch.Tensor] | None) -> None:
        self.model, self.val = model, val
        self.scores: list[float] = []
        self.best_state = copy.deepcopy(model.state_dict())
        self.best_epoch = 0

    def update(self) -> None:
        if self.val is None:
            self.best_state, self.best_epoch = copy.deepcopy(self.model.state_dict()), len(self.scores) + 1
            self.scores.append(float("nan"))
            return
        score = accuracy_of(self.model, *self.val)
        if not self.scores or score > max(self.scores):
            self.best_state, self.best_epoch = copy.deepcopy(self.model.state_dict()), len(self.scores) + 1
        self.scores.append(score)

    def result(self) -> Trained:
        self.model.load_state_dict(self.best_state)
        vals = np.asarray(self.scores) if self.val is not None else np.zeros(0)
        return Trained(self.model, vals, self.best_epoch)  # type: ignore[arg-type]


def _dro_loss(
    losses: torch.Tensor, g: torch.Tensor, q: torch.Tensor, n_groups: int, step: float
) -> tuple[torch.Tensor, torch.Tensor]:
    """Online GroupDRO: per-group mean losses, exponentiated-gradient update of ``q``, weighted sum."""
    counts = torch.bincount(g, minlength=n_groups).to(losses.dtype)
    sums = torch.zeros(n_groups, dtype=losses.dtype, device=losses.device).index_add(0, g, losses)
    group_loss = sums / counts.clamp(min=1)
    q = q * torch.exp(step * group_loss.detach() * (counts > 0))
    q = q / q.sum()
    return (q * group_loss).sum(), q


def train_classifier(
    model: Net,
    x: torch.Tensor,
    y: torch.Tensor,
    *,
    epochs: int,
    batch_size: int = 64,
    lr: float = 1e-3,
    weight_decay: float = 0.0,
    sample_weights: torch.Tensor | None = None,
    groups: torch.Tensor | None = None,
    dro_step: float = 0.01,
    val: tuple[torch.Tensor, torch.Tensor] | None = None,
    seed: int,
) -> Trained:
    """Train ``model`` in place (see the module docstring) and load its best-validation state."""
    check_model(model)
    x = check_batch(x, "x")
    y = check_label_vector(y, len(x))
    epochs, batch_size = check_int(epochs, "epochs", low=1), check_int(batch_size, "batch_size", low=1)
    lr, weight_decay = check_positive(lr, "lr"), check_positive(weight_decay, "weight_decay", strict=False)
    dro_step, val = check_positive(dro_step, "dro_step"), check_val(val)
    if sample_weights is not None:
        w = check_vector(sample_weights, "sample_weights", len(x), kind="f")
        if bool((w < 0).any()) or not bool((w > 0).any()):
            raise ValueError("sample_weights must be >= 0 with a positive sum")
    if groups is not None and int(check_vector(groups, "groups", len(x), kind="i").min()) < 0:
        raise ValueError("groups must be non-negative group indices")
    gen = torch.Generator(device=x.device).manual_seed(check_seed(seed))
    opt = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=weight_decay)
    n_groups = int(groups.max()) + 1 if groups is not None else 0
    q = torch.full((max(n_groups, 1),), 1.0 / max(n_groups, 1), device=x.device)
    sel = Selector(model, val)
    with torch_threads(1):
        for _ in range(epochs):
            model.train()
            for idx in draw_indices(len(x), sample_weights, gen).split(batch_size):
                losses = nn.functional.cross_entropy(model(x[idx]), y[idx], reduction="none")
                if groups is None:
                    loss = losses.mean()
                else:
                    loss, q = _dro_loss(losses, groups[idx], q, n_groups, dro_step)
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
            sel.update()
    return sel.result()
