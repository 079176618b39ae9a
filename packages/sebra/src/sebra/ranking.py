"""Stage 1 of Sebra: self-guided bias ranking by steered ERM (official code ``SebraTrainer._before_train``,
``train_erm``, ``update_rank``; ``loss/upweighted_training_loss.py``), and the plain ERM-loss ranking.

Per-sample controls: selection flag ``v_i`` (the sampler weight), up-weighting exponent ``beta_inv`` (code
``beta_inverse``, the paper's 1/beta) and confidence threshold ``p_crit`` (code ``p_critical``). With
``p_i = p_theta(y_i | x_i)``, epoch t = 1, 2, ... :

  a. ERM step: ``n`` draws with replacement from the samples with ``v_i = 1``, minibatch loss
         L = mean_i  stopgrad(p_i)^beta_inv * CE(f(x_i), y_i)                 (upweighted CE)
     (confident, i.e. spurious, samples are learned faster still; hard ones are down-weighted);
  b. ranking pass: every remaining sample with ``p_i > p_crit`` gets ``v_i <- 0`` and rank ``r_i = t``;
  c. stop when no sample remains (or after ``max_epochs``).

Rank 1 = learned first = most spurious. Samples never removed get ``max_epochs + 1`` (the paper's rule:
appended after the last rank) or ``-1`` (``unranked="code"``: the official code leaves the -1 it starts
from, which sorts them *before* rank 1).

ERM-loss ranking (the spec's ablation of the controls): plain ERM (shuffled passes over every sample, mean
CE); a sample's rank is the first epoch after which the model predicts it correctly (argmax); never-learned
samples are appended last. Same network, optimiser, batch size and epoch budget.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from paperkit import (
    check_array,
    check_choice,
    check_instance,
    check_int,
    check_number,
    check_positive,
    check_seed,
    torch_threads,
)
from paperkit.vision.common import as_device, check_model
from torch import nn

from sebra.training import build_net, check_batch, check_vector, draw_indices, predict_proba

__all__ = ["UNRANKED", "RankConfig", "RankResult", "check_labels", "erm_rank", "sebra_rank", "upweighted_ce"]

UNRANKED = ("last", "code")


def upweighted_ce(logits: torch.Tensor, y: torch.Tensor, beta_inv: float) -> torch.Tensor:
    """Per-sample ``stopgrad(p_y)^beta_inv * CE`` (``(n,)``); ``beta_inv = 0`` is plain CE."""
    beta_inv = check_number(beta_inv, "beta_inv", low=0.0)
    logits = check_batch(logits, "logits")
    y = check_vector(y, "y", len(logits), kind="i")
    if logits.ndim != 2 or int(y.min()) < 0 or int(y.max()) >= logits.shape[1]:
        raise ValueError(f"logits must be (n, C) and y labels in 0..C-1, got {tuple(logits.shape)}, y in "
                         f"{int(y.min())}..{int(y.max())}")  # fmt: skip
    ce = nn.functional.cross_entropy(logits, y, reduction="none")
    p_y = torch.exp(-ce.detach())  # p_theta(y|x), detached: the weight carries no gradient
    return p_y**beta_inv * ce


@dataclass(frozen=True)
class RankConfig:
    """Stage-1 settings. Defaults: official UrbanCars launcher (beta_inv 0.7, p_crit 0.75, batch 128);
    Adam lr 1e-3 as the spec's small-scale recipe (the code: SGD lr 1e-3, momentum 0.1, wd 1e-5, from an
    ImageNet-pretrained ResNet-50); ``max_epochs`` 30 as the spec's calibration (code: ``epoch`` = 50)."""

    beta_inv: float = 0.7
    p_crit: float = 0.75
    max_epochs: int = 30
    batch_size: int = 128
    lr: float = 1e-3
    weight_decay: float = 0.0
    unranked: str = "last"

    def __post_init__(self) -> None:
        check_number(self.beta_inv, "beta_inv", low=0.0)
        check_number(self.p_crit, "p_crit", low=0.0, high=1.0)
        check_int(self.max_epochs, "max_epochs", low=1)
        check_int(self.batch_size, "batch_size", low=1)
        check_positive(self.lr, "lr")
        check_positive(self.weight_decay, "weight_decay", strict=False)
        check_choice(self.unranked, "unranked", UNRANKED)


@dataclass(frozen=True)
class RankResult:
    """``ranks (n,)`` int64 (1 = most spurious; unranked as the config says), ``ranked (n,)`` bool,
    ``remaining (epochs,)`` int64: samples still selected after each epoch's ranking pass."""

    ranks: torch.Tensor
    ranked: torch.Tensor
    remaining: np.ndarray

    def __post_init__(self) -> None:
        n = check_instance(self.ranks, "ranks", torch.Tensor).numel()
        check_vector(self.ranks, "ranks", n, kind="i")
        check_vector(self.ranked, "ranked", n, kind="b")
        check_array(check_instance(self.remaining, "remaining", np.ndarray), "remaining", ndim=1, kind="iu")

    @property
    def n_buckets(self) -> int:
        return int(torch.unique(self.ranks).numel())


def check_labels(x: torch.Tensor, y: torch.Tensor, *, min_per_class: int = 1) -> int:
    """Inputs ``(n, ...)`` float, finite (images ``(n, 1, h, w)``) and labels ``(n,)`` int64 with at least
    two classes; returns the class count."""
    x = check_batch(x, "x")
    if check_instance(y, "y", torch.Tensor).dtype != torch.int64 or y.shape != (len(x),):
        raise ValueError(f"y must be an int64 vector of len(x) = {len(x)}, got {tuple(y.shape)} {y.dtype}")
    classes, counts = torch.unique(y, return_counts=True)
    if len(classes) < 2 or int(classes.min()) < 0:
        raise ValueError(
            f"y must hold at least two classes 0..C-1 (a single class has no spurious cue to rank), "
            f"got classes {classes.tolist()}"
        )
    if int(counts.min()) < min_per_class:
        raise ValueError(
            f"y: every class needs at least {min_per_class} samples, else the dataset is smaller than "
            f"its rank buckets (an anchor needs another same-class sample), got counts {counts.tolist()}"
        )
    return int(classes.max()) + 1


def check_ranking_model(model: object, x: torch.Tensor) -> nn.Module | None:
    """``None`` (a fresh :class:`~sebra.training.Net`, which needs images ``(n, 1, h, w)``) or a module."""
    if model is not None:
        return check_model(model)
    if x.ndim != 4 or x.shape[1] != 1:
        raise ValueError(f"x must be (n, 1, h, w) images for the default network, got {tuple(x.shape)}")
    return None


def _finish(ranks: torch.Tensor, ranked: torch.Tensor, max_epochs: int, unranked: str) -> torch.Tensor:
    return torch.where(ranked, ranks, torch.full_like(ranks, max_epochs + 1 if unranked == "last" else -1))


def _start(
    x: torch.Tensor,
    y: torch.Tensor,
    config: RankConfig,
    *,
    seed: int,
    device: str | torch.device,
    model: nn.Module | None,
) -> tuple[torch.Tensor, torch.Tensor, nn.Module, torch.optim.Optimizer, torch.Generator]:
    """What both rankings start from: checked data on ``device``, the network (fresh from ``seed`` or
    ``model``), its Adam and the sampling generator (``seed + 1``)."""
    n_classes = check_labels(x, y, min_per_class=2)
    seed = check_seed(seed)
    config, model = check_instance(config, "config", RankConfig), check_ranking_model(model, x)
    device = as_device(device)
    x, y = x.to(device), y.to(device)
    model = build_net(n_classes, seed=seed, device=device) if model is None else model
    opt = torch.optim.Adam(model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    gen = torch.Generator(device=x.device).manual_seed(seed + 1)
    return x, y, model, opt, gen


def sebra_rank(
    x: torch.Tensor,
    y: torch.Tensor,
    config: RankConfig = RankConfig(),
    *,
    seed: int,
    device: str | torch.device = "cpu",
    model: nn.Module | None = None,
) -> RankResult:
    """Steered ERM from a fresh network (``seed``; or ``model``, trained in place); see the module
    docstring. Ranking passes run in eval mode."""
    x, y, model, opt, gen = _start(x, y, config, seed=seed, device=device, model=model)
    v = torch.ones(len(x), dtype=torch.bool, device=x.device)
    ranks = torch.zeros(len(x), dtype=torch.int64, device=x.device)
    remaining = []
    with torch_threads(1):
        for t in range(1, config.max_epochs + 1):
            model.train()
            for idx in draw_indices(len(x), v.float(), gen).split(config.batch_size):
                loss = upweighted_ce(model(x[idx]), y[idx], config.beta_inv).mean()
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
            live = torch.nonzero(v)[:, 0]
            p_y = predict_proba(model, x[live]).gather(1, y[live, None])[:, 0]
            out = live[p_y > config.p_crit]
            v[out], ranks[out] = False, t
            remaining.append(int(v.sum()))
            if remaining[-1] == 0:
                break
    ranked = ~v
    return RankResult(_finish(ranks, ranked, config.max_epochs, config.unranked), ranked, np.array(remaining))


def erm_rank(
    x: torch.Tensor,
    y: torch.Tensor,
    config: RankConfig = RankConfig(),
    *,
    seed: int,
    device: str | torch.device = "cpu",
    model: nn.Module | None = None,
) -> RankResult:
    """The ERM-loss ranking: rank = first epoch of plain ERM after which the sample is classified right
    (a fresh network from ``seed``, or ``model``, trained in place)."""
    x, y, model, opt, gen = _start(x, y, config, seed=seed, device=device, model=model)
    ranked = torch.zeros(len(x), dtype=torch.bool, device=x.device)
    ranks = torch.zeros(len(x), dtype=torch.int64, device=x.device)
    remaining = []
    with torch_threads(1):
        for t in range(1, config.max_epochs + 1):
            model.train()
            for idx in draw_indices(len(x), None, gen).split(config.batch_size):
                loss = nn.functional.cross_entropy(model(x[idx]), y[idx])
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
            new = (predict_proba(model, x).argmax(1) == y) & ~ranked
            ranks[new], ranked = t, ranked | new
            remaining.append(int((~ranked).sum()))
            if remaining[-1] == 0:
                break
    return RankResult(_finish(ranks, ranked, config.max_epochs, config.unranked), ranked, np.array(remaining))
