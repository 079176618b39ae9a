"""Sebra and its baselines behind one registry (the spec's "Baselines to ship beside it").

- ``erm``: ERM (mean CE, shuffled passes).
- ``jtt``: Just Train Twice (Liu et al. 2021): ERM for ``jtt_id_epochs`` (code ``bias_id_epoch`` 1), its
  training errors up-sampled ``jtt_up_weight`` times (code 100) in a fresh model's training (drawn with a
  weighted sampler, ``n`` draws an epoch).
- ``groupdro``: online GroupDRO with the oracle group labels (class x alignment pattern; upper reference).
- ``sebra``: stage 1 :func:`~sebra.ranking.sebra_rank` then stage 2 :func:`~sebra.debias.sebra_debias`.
- ``erm-rank``: the ablation "ERM-loss ranking + the same contrastive stage" (is the ranking what matters?).

Every method is ``call(train, val, config, *, seed, device) -> Fitted``; only ``groupdro`` reads bias
labels. The same seed gives every method the same data and the same initialisation of the network it
evaluates; every method selects its epoch on the validation average accuracy.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np
import torch
from paperkit import check_choice, check_instance, check_int, check_number, check_positive, check_seed
from paperkit.vision.common import as_device

from sebra.data import Shortcuts
from sebra.debias import DebiasConfig, sebra_debias
from sebra.ranking import RankConfig, RankResult, check_labels, erm_rank, sebra_rank
from sebra.training import Net, build_net, predict_proba, train_classifier

__all__ = ["METHODS", "Fitted", "MethodConfig", "MethodInfo", "run_method"]


@dataclass(frozen=True)
class MethodConfig:
    """The budget and settings every method shares; ``lr`` is the tuned axis (the final model's lr)."""

    epochs: int = 20  # spec: ERM 20 epochs; also JTT's and GroupDRO's final training
    batch_size: int = 64
    lr: float = 1e-3  # spec: Adam 1e-3 at this scale
    jtt_up_weight: float = 100.0  # official UrbanCars launcher
    jtt_id_epochs: int = 1  # official launcher (bias_id_epoch)
    dro_step: float = 0.01  # official launcher (groupdro_robust_step_size)
    rank: RankConfig = field(default_factory=RankConfig)
    debias: DebiasConfig = field(default_factory=DebiasConfig)

    def __post_init__(self) -> None:
        check_int(self.epochs, "epochs", low=1)
        check_int(self.batch_size, "batch_size", low=1)
        check_positive(self.lr, "lr")
        check_number(self.jtt_up_weight, "jtt_up_weight", low=1.0)
        check_int(self.jtt_id_epochs, "jtt_id_epochs", low=1)
        check_positive(self.dro_step, "dro_step")
        check_instance(self.rank, "rank", RankConfig)
        check_instance(self.debias, "debias", DebiasConfig)

    def with_lr(self, lr: float) -> MethodConfig:
        """The same budget with the final model's learning rate set (stage 2's for the two-stage methods)."""
        return replace(self, lr=lr, debias=replace(self.debias, lr=lr))


@dataclass(frozen=True)
class Fitted:
    """``model`` (best validation epoch), ``val_acc (epochs,)``, ``val_proba (n_val, C)`` of the chosen
    model, and for the ranking methods ``ranks (n_train,)`` and ``remaining (rank epochs,)``."""

    model: Net
    val_acc: np.ndarray
    val_proba: torch.Tensor
    ranks: torch.Tensor | None = None
    remaining: np.ndarray | None = None

    def __post_init__(self) -> None:
        check_instance(self.model, "model", Net)
        check_instance(self.val_acc, "val_acc", np.ndarray)
        check_instance(self.val_proba, "val_proba", torch.Tensor)
        if self.ranks is not None:
            check_instance(self.ranks, "ranks", torch.Tensor)


@dataclass(frozen=True)
class MethodInfo:
    """A registry entry: whether it uses bias (group) labels, whether it ranks, and the entry point."""

    uses_group_labels: bool
    ranks: bool
    call: Callable[..., Fitted]


def _inputs(
    train: object, val: object, config: object, seed: object, device: str | torch.device
) -> tuple[Shortcuts, Shortcuts, MethodConfig, int, torch.device]:
    tr: Shortcuts = check_instance(train, "train", Shortcuts)  # type: ignore[assignment]
    va: Shortcuts = check_instance(val, "val", Shortcuts)  # type: ignore[assignment]
    cfg: MethodConfig = check_instance(config, "config", MethodConfig)  # type: ignore[assignment]
    check_labels(tr.x, tr.y, min_per_class=2)
    check_labels(va.x, va.y)
    return tr, va, cfg, check_seed(seed), as_device(device)


def _fitted(model: Net, val_acc: np.ndarray, val: Shortcuts, rank: RankResult | None = None) -> Fitted:
    proba = predict_proba(model, val.x)
    if rank is None:
        return Fitted(model, val_acc, proba)
    return Fitted(model, val_acc, proba, rank.ranks, rank.remaining)


def erm(train: Shortcuts, val: Shortcuts, config: MethodConfig = MethodConfig(), *, seed: int,
        device: str | torch.device = "cpu") -> Fitted:  # fmt: skip
    train, val, config, seed, device = _inputs(train, val, config, seed, device)
    net = build_net(seed=seed, device=device)
    tr = train_classifier(net, train.x.to(device), train.y.to(device), epochs=config.epochs,
                          batch_size=config.batch_size, lr=config.lr,
                          val=(val.x.to(device), val.y.to(device)), seed=seed)  # fmt: skip
    return _fitted(tr.model, tr.val_acc, val)


def jtt(train: Shortcuts, val: Shortcuts, config: MethodConfig = MethodConfig(), *, seed: int,
        device: str | torch.device = "cpu") -> Fitted:  # fmt: skip
    train, val, config, seed, device = _inputs(train, val, config, seed, device)
    x, y, v = train.x.to(device), train.y.to(device), (val.x.to(device), val.y.to(device))
    ident = train_classifier(build_net(seed=seed + 7, device=device), x, y, epochs=config.jtt_id_epochs,
                             batch_size=config.batch_size, lr=config.lr, seed=seed + 7)  # fmt: skip
    errors = predict_proba(ident.model, x).argmax(1) != y
    weights = 1.0 + (config.jtt_up_weight - 1.0) * errors.float()
    tr = train_classifier(build_net(seed=seed, device=device), x, y, epochs=config.epochs,
                          batch_size=config.batch_size, lr=config.lr, sample_weights=weights, val=v,
                          seed=seed)  # fmt: skip
    return _fitted(tr.model, tr.val_acc, val)


def groupdro(train: Shortcuts, val: Shortcuts, config: MethodConfig = MethodConfig(), *, seed: int,
             device: str | torch.device = "cpu") -> Fitted:  # fmt: skip
    train, val, config, seed, device = _inputs(train, val, config, seed, device)
    tr = train_classifier(build_net(seed=seed, device=device), train.x.to(device), train.y.to(device),
                          epochs=config.epochs, batch_size=config.batch_size, lr=config.lr,
                          groups=train.group.to(device), dro_step=config.dro_step,
                          val=(val.x.to(device), val.y.to(device)), seed=seed)  # fmt: skip
    return _fitted(tr.model, tr.val_acc, val)


def _two_stage(ranker: Callable[..., RankResult]) -> Callable[..., Fitted]:
    def call(train: Shortcuts, val: Shortcuts, config: MethodConfig = MethodConfig(), *, seed: int,
             device: str | torch.device = "cpu") -> Fitted:  # fmt: skip
        train, val, config, seed, device = _inputs(train, val, config, seed, device)
        rank = ranker(train.x, train.y, config.rank, seed=seed + 11, device=device)
        tr = sebra_debias(train.x, train.y, rank.ranks, config.debias, seed=seed, device=device,
                          val=(val.x.to(device), val.y.to(device)))  # fmt: skip
        return _fitted(tr.model, tr.val_acc, val, rank)

    return call


METHODS: dict[str, MethodInfo] = {
    "erm": MethodInfo(False, False, erm),
    "jtt": MethodInfo(False, False, jtt),
    "groupdro": MethodInfo(True, False, groupdro),
    "sebra": MethodInfo(False, True, _two_stage(sebra_rank)),
    "erm-rank": MethodInfo(False, True, _two_stage(erm_rank)),
}


def run_method(name: str, train: Shortcuts, val: Shortcuts, config: MethodConfig = MethodConfig(), *,
               seed: int, device: str | torch.device = "cpu") -> Fitted:  # fmt: skip
    """Run the registry method ``name`` (one of :data:`METHODS`)."""
    return METHODS[check_choice(name, "name", tuple(METHODS))].call(
        train, val, config, seed=seed, device=device
    )
