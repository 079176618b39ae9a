"""Stage 2 of Sebra: rank-aware contrastive debiasing (official ``SebraTrainer.train``).

A fresh encoder g (same architecture, new init) and a linear head h. Each epoch visits every training
sample once as an anchor (shuffled), draws its positive/negative with :func:`sebra.contrastive.sample_pairs`
and, per minibatch of anchors:

- ``g(x_p), g(x_n)`` in eval mode without gradient (a momentary snapshot of the same encoder);
- ``g`` in train mode on ``[x_a; x_p]``: the anchors' features enter L_con, the positives' features feed h;
- ``L = L_con(g(x_a), g(x_p)', g(x_n)') + cls_weight * CE(h(g(x_p)), y)`` (the head learns from the
  less-spurious positives only).

Optimiser: Adam lr 1e-3, weight decay 1e-5 (the code's stage 2). Model selection: the epoch with the best
validation average accuracy (the code selects on a validation worst-group metric, which needs group labels).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import torch
from paperkit import (
    check_bool,
    check_instance,
    check_int,
    check_number,
    check_positive,
    check_seed,
    torch_threads,
)
from paperkit.vision.common import as_device
from torch import nn

from sebra.contrastive import rank_contrastive_loss, sample_pairs
from sebra.ranking import check_labels
from sebra.training import Net, Selector, Trained, build_net, check_batch, check_val, check_vector

__all__ = ["DebiasConfig", "sebra_debias", "stage2_loss"]


@dataclass(frozen=True)
class DebiasConfig:
    """Stage-2 settings. tau 0.05 and cls_weight 0.5 (UrbanCars launcher); gap 2 (launcher default and the
    spec's calibration; UrbanCars script 5); batch 64 (UrbanCars); epochs 20 (spec; code: ``epoch`` 50)."""

    epochs: int = 20
    batch_size: int = 64
    lr: float = 1e-3
    weight_decay: float = 1e-5
    tau: float = 0.05
    gap: int = 2
    cls_weight: float = 0.5
    drop_top: bool = False

    def __post_init__(self) -> None:
        check_int(self.epochs, "epochs", low=1)
        check_int(self.batch_size, "batch_size", low=1)
        check_positive(self.lr, "lr")
        check_positive(self.weight_decay, "weight_decay", strict=False)
        check_positive(self.tau, "tau")
        check_int(self.gap, "gap", low=1)
        check_number(self.cls_weight, "cls_weight", low=0.0)
        check_bool(self.drop_top, "drop_top")


def stage2_loss(
    model: Net,
    x_anchor: torch.Tensor,
    x_pos: torch.Tensor,
    x_neg: torch.Tensor,
    y_pos: torch.Tensor,
    *,
    tau: float,
    cls_weight: float,
) -> torch.Tensor:
    """One minibatch's ``L_con + cls_weight * L_cls``; leaves ``model`` in train mode.

    The positives' and negatives' contrastive features come from the encoder in eval mode without
    gradient (the code's snapshot); the gradient reaches the encoder through the anchors (L_con) and through
    the positives' second, train-mode pass that feeds the head (L_cls).
    """
    enc = check_instance(model, "model", Net).encoder
    x_anchor, x_pos, x_neg = (check_batch(t, k) for t, k in ((x_anchor, "x_anchor"), (x_pos, "x_pos"),
                                                             (x_neg, "x_neg")))  # fmt: skip
    y_pos = check_vector(y_pos, "y_pos", len(x_pos), kind="i")
    cls_weight = check_number(cls_weight, "cls_weight", low=0.0)
    enc.eval()
    with torch.no_grad():
        f_pos, f_neg = enc(x_pos), enc(x_neg)
    model.train()
    feats = enc(torch.cat([x_anchor, x_pos]))
    con = rank_contrastive_loss(feats[: len(x_anchor)], f_pos, f_neg, tau)
    cls = nn.functional.cross_entropy(model.head(feats[len(x_anchor) :]), y_pos)
    return con + cls_weight * cls


def _warn_absent_classes(y: torch.Tensor, anchors: torch.Tensor) -> None:
    """A class whose anchors were all dropped (one rank bucket under ``drop_top``) gets no L_con term."""
    missing = sorted(set(torch.unique(y).tolist()) - set(torch.unique(y[anchors]).tolist()))
    if missing:
        warnings.warn(
            f"classes {missing} have no anchor with a higher-rank positive (a single rank bucket with "
            "drop_top=True): they are absent from the contrastive stage",
            RuntimeWarning,
            stacklevel=3,
        )


def sebra_debias(
    x: torch.Tensor,
    y: torch.Tensor,
    ranks: torch.Tensor,
    config: DebiasConfig = DebiasConfig(),
    *,
    val: tuple[torch.Tensor, torch.Tensor] | None = None,
    seed: int,
    device: str | torch.device = "cpu",
) -> Trained:
    """Train a fresh :class:`~sebra.training.Net` with the rank-aware contrastive objective."""
    n_classes = check_labels(x, y, min_per_class=2)
    config = check_instance(config, "config", DebiasConfig)
    if check_instance(ranks, "ranks", torch.Tensor).shape != y.shape or ranks.dtype != torch.int64:
        raise ValueError(f"ranks must be an int64 vector of len(y) = {len(y)}, got {tuple(ranks.shape)}")
    check_vector(ranks, "ranks", len(y), kind="i")
    if x.ndim != 4 or x.shape[1] != 1:
        raise ValueError(f"x must be (n, 1, h, w) images, got {tuple(x.shape)}")
    seed, val, device = check_seed(seed), check_val(val), as_device(device)
    x, y, ranks = x.to(device), y.to(device), ranks.to(device)
    model = build_net(n_classes, seed=seed, device=device)
    opt = torch.optim.Adam(model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    gen = torch.Generator(device=x.device).manual_seed(seed + 2)
    sel = Selector(model, val)
    with torch_threads(1):
        for epoch in range(config.epochs):
            perm = torch.randperm(len(x), generator=gen, device=x.device)
            a, p, n = sample_pairs(y, ranks, perm, gap=config.gap, generator=gen, drop_top=config.drop_top)
            if epoch == 0:
                _warn_absent_classes(y, a)
            for b in range(0, len(a), config.batch_size):
                ia, ip, ineg = (t[b : b + config.batch_size] for t in (a, p, n))
                loss = stage2_loss(model, x[ia], x[ip], x[ineg], y[ip], tau=config.tau,
                                   cls_weight=config.cls_weight)  # fmt: skip
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
            sel.update()
    return sel.result()
