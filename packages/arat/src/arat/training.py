"""One training loop for every objective (official ``train_ARAT.py``, ``train_one_epoch``).

Per batch ``(x, y)``, with ``x' = PGD(f_adv, x, y)`` (``eps``, ``alpha``, ``steps``; uniform start; train
mode as the official code unless ``attack_train_mode=False``):

- ``"clean"``:  CE(f(x), y)                                         (standard training: the gate's reference)
- ``"at"``:     CE(f(x'), y)                                        (PGD-AT, Madry et al.)
- ``"trades"``: CE(f(x), y) + beta KL(p(x) || p(x'')),  x'' = PGD on the KL from x + 0.001 N(0, 1), eval mode
- ``"arat"``:   w_a CE(f_adv(x'), y) + w_c CE(f_cln(x), y) + gamma/|L| sum_l inv(z^l_adv(x'), z^l_cln(x))

For ``"arat"`` the switches give ARAT and its ablations: ``split_bn`` (two BN branches, else one shared
network), ``invariance`` (``"asymmetric"`` = Dist(h(z'), sg z) with ``predictor``, ``"symmetric"`` = the
naive Eq. 5 loss, ``"none"``), ``auto_balance`` (w_a, w_c = acc, 1 - acc from the clean branch's accuracy
on <= 1000 training images at each epoch's start, in eval mode) or the fixed ``w_adv``, ``w_clean``.

Schedule (official ``CustomLR``): SGD, momentum 0.9, weight decay 5e-4; the first epoch at 0.2 lr (0.02
for lr 0.1), then lr, x0.1 after 75% and x0.01 after 90% of the epochs (75/90 of 100 in the official).
Optional (not official): ``eps_warmup`` epochs of a linear ramp of the training radius (``eps_at``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import torch
import torch.nn.functional as F
from paperkit import torch_threads
from paperkit.validation import (
    check_bool,
    check_choice,
    check_int,
    check_number,
    check_positive,
    check_seed,
    check_strings,
)
from torch import nn

from arat.attacks import pgd_kernel
from arat.checks import check_model_data
from arat.features import check_layers, forward_features
from arat.layers import has_split_bn, use_branch
from arat.losses import asymmetric_invariance, auto_balance_weights, symmetric_invariance, trades_kl
from arat.predictor import head, predictors

__all__ = ["OBJECTIVES", "SGD", "TrainConfig", "Trained", "batch_loss", "eps_at", "lr_at", "train"]

OBJECTIVES = ("clean", "at", "trades", "arat")
INVARIANCES = ("asymmetric", "symmetric", "none")


@dataclass(frozen=True)
class TrainConfig:
    """Hyper-parameters of one training run (defaults: this package's digits scale; official in comments)."""

    objective: str = "arat"
    epochs: int = 20  # official 100 (CIFAR)
    batch_size: int = 64  # official 128; spec toy 64 (twice the steps per epoch on 1.4k images)
    lr: float = 0.1  # official 0.1 (the full run tunes it on the dev split)
    momentum: float = 0.9  # official
    weight_decay: float = 5e-4  # official
    eps: float = 0.35  # official 8/255 on CIFAR; digits need a larger radius for a trade-off (RESULTS.md)
    alpha: float | None = None  # None: eps / 4 (official 2/255 = eps / 4)
    steps: int = 7  # official 10 (spec toy: PGD-7)
    attack_train_mode: bool = True  # official: the model stays in train mode during the attack
    # epochs over which the training eps ramps up linearly, eps (e + 1) / (eps_warmup + 1) in epoch e; 0
    # (official: no ramp) trains at eps from the first step
    eps_warmup: int = 0
    beta: float = 6.0  # TRADES' official beta
    gamma: float = 10.0  # official 30 (ResNet-18), 100 (WRN); calibrated for the toy in the spec
    invariance: str = "asymmetric"
    predictor: bool = True  # official is_use_predictor_xx=True
    ratio: float = 0.25  # official pred_dim_ratio
    split_bn: bool = True
    auto_balance: bool = True  # official is_auto_balance_ce_loss=True
    kappa: float = 1.0  # official auto_bal_prev_acc_weight
    w_adv: float = 1.0  # official ce_loss_fxx_y_weight (when auto_balance is off)
    w_clean: float = 1.0  # official ce_loss_gx_y_weight
    balance_subset: int = 1000  # official test_single_bn(max_n=1000)
    layers: tuple[str, ...] | None = None  # None: the last two BatchNorms (models.default_layers)

    def __post_init__(self) -> None:
        check_choice(self.objective, "objective", OBJECTIVES)
        check_choice(self.invariance, "invariance", INVARIANCES)
        check_int(self.epochs, "epochs", low=0)
        check_int(self.batch_size, "batch_size", low=2)
        check_int(self.steps, "steps", low=1)
        check_int(self.eps_warmup, "eps_warmup", low=0)
        check_int(self.balance_subset, "balance_subset", low=1)
        check_positive(self.lr, "lr")
        check_positive(self.eps, "eps", strict=False)
        if self.alpha is not None:
            check_positive(self.alpha, "alpha")
        check_number(self.momentum, "momentum", low=0.0, high=1.0, high_open=True)
        for name in ("weight_decay", "beta", "gamma", "w_adv", "w_clean"):
            check_positive(getattr(self, name), name, strict=False)
        check_positive(self.kappa, "kappa")
        check_number(self.ratio, "ratio", low=0.0, high=1.0, low_open=True)
        if self.layers is not None:
            if isinstance(self.layers, str) or not isinstance(self.layers, tuple | list) or not self.layers:
                raise TypeError(
                    f"layers must be None or a non-empty tuple of module names, got {self.layers!r}"
                )
            check_strings(self.layers, "layers")
        for name in ("attack_train_mode", "predictor", "split_bn", "auto_balance"):
            check_bool(getattr(self, name), name)

    @property
    def step_size(self) -> float:
        return self.eps / 4 if self.alpha is None else self.alpha


@dataclass
class Trained:
    """A trained model (its ``"adv"`` branch is the test-time model), its predictors, and per-epoch logs:
    ``loss`` (mean total loss), ``w_adv``, ``w_clean`` (the classification weights; with auto-balance
    w_adv is the clean branch's accuracy at the epoch's start), ``lr`` and ``cpu_seconds`` (process CPU
    time of each epoch)."""

    model: nn.Module
    heads: nn.ModuleDict | None
    loss: np.ndarray
    w_adv: np.ndarray
    w_clean: np.ndarray
    lr: np.ndarray
    cpu_seconds: np.ndarray = field(default_factory=lambda: np.zeros(0))


class SGD:
    """Heavy-ball SGD with L2 weight decay, the update of ``torch.optim.SGD`` (dampening 0, no Nesterov):

        d = g + wd p,   b = d (first step) else mu b + d,   p <- p - lr b

    Written out because constructing a ``torch.optim`` optimiser imports ``torch._dynamo`` (seconds of CPU
    per process, which the smoke runs and every worker would pay).
    """

    def __init__(
        self, params: Sequence[torch.Tensor], *, lr: float, momentum: float, weight_decay: float
    ) -> None:
        self.params = [p for p in params if p.requires_grad]
        self.lr, self.momentum, self.weight_decay = lr, momentum, weight_decay
        self.buffers: list[torch.Tensor | None] = [None] * len(self.params)

    def zero_grad(self) -> None:
        for p in self.params:
            p.grad = None

    @torch.no_grad()
    def step(self) -> None:
        for i, p in enumerate(self.params):
            if p.grad is None:
                continue
            d = p.grad.add(p, alpha=self.weight_decay) if self.weight_decay else p.grad
            buf = self.buffers[i]
            if self.momentum:
                buf = d.clone() if buf is None else buf.mul_(self.momentum).add_(d)
                self.buffers[i] = buf
                d = buf
            p.add_(d, alpha=-self.lr)


def lr_at(config: TrainConfig, epoch: int) -> float:
    """Learning rate of ``epoch`` (0-based): 0.2 lr, then lr, 0.1 lr from 75%, 0.01 lr from 90%."""
    config = check_instance_config(config)
    epoch = check_int(epoch, "epoch", low=0)
    if epoch == 0:
        return 0.2 * config.lr
    frac = epoch / max(config.epochs, 1)
    return config.lr * (1.0 if frac < 0.75 else 0.1 if frac < 0.9 else 0.01)


def eps_at(config: TrainConfig, epoch: int) -> float:
    """Training radius of ``epoch`` (0-based): ``eps (epoch + 1) / (eps_warmup + 1)`` during the warm-up,
    then ``eps`` (the step size follows it when ``alpha`` is None)."""
    config = check_instance_config(config)
    epoch = check_int(epoch, "epoch", low=0)
    if epoch >= config.eps_warmup:
        return config.eps
    return config.eps * (epoch + 1) / (config.eps_warmup + 1)


@torch.no_grad()
def _clean_accuracy(model: nn.Module, x: torch.Tensor, y: torch.Tensor) -> float:
    was = model.training
    model.eval()
    with use_branch(model, "clean"):
        acc = float((model(x).argmax(1) == y).float().mean())
    model.train(was)
    return acc


def _attack(
    model: nn.Module, x: torch.Tensor, y: torch.Tensor, c: TrainConfig, gen: torch.Generator
) -> torch.Tensor:
    with use_branch(model, "adv"):
        return pgd_kernel(
            model,
            x,
            y,
            eps=c.eps,
            alpha=c.step_size,
            steps=c.steps,
            loss="ce",
            start="uniform",
            generator=gen,
            train_mode=c.attack_train_mode,
        )


def batch_loss(
    model: nn.Module,
    heads: nn.ModuleDict | None,
    x: torch.Tensor,
    y: torch.Tensor,
    c: TrainConfig,
    layers: Sequence[str],
    weights: tuple[float, float],
    gen: torch.Generator,
) -> torch.Tensor:
    if c.objective == "clean":
        return F.cross_entropy(model(x), y)
    if c.objective == "trades":
        adv = pgd_kernel(
            model,
            x,
            y,
            eps=c.eps,
            alpha=c.step_size,
            steps=c.steps,
            loss="kl",
            start="normal",
            generator=gen,
            train_mode=False,
        )
        logits = model(x)
        return F.cross_entropy(logits, y) + c.beta * trades_kl(model(adv), logits)
    adv = _attack(model, x, y, c, gen)
    if c.objective == "at":
        return F.cross_entropy(model(adv), y)
    with use_branch(model, "clean"):
        out_c, feat_c = forward_features(model, x, layers)
    with use_branch(model, "adv"):
        out_a, feat_a = forward_features(model, adv, layers)
    loss = weights[0] * F.cross_entropy(out_a, y) + weights[1] * F.cross_entropy(out_c, y)
    if c.gamma > 0 and c.invariance != "none":
        inv = []
        for name in layers:
            if c.invariance == "symmetric":
                inv.append(symmetric_invariance(feat_a[name], feat_c[name]))
            else:
                pred = head(heads, name) if heads is not None else None
                inv.append(asymmetric_invariance(feat_a[name], feat_c[name], pred))
        loss = loss + c.gamma * torch.stack(inv).mean()
    return loss


def _setup(
    model: nn.Module, c: TrainConfig, seed: int, device: torch.device
) -> tuple[tuple[str, ...], nn.ModuleDict | None]:
    from arat.models import default_layers

    if c.objective != "arat":
        return (), None
    if c.split_bn and not has_split_bn(model):
        raise ValueError("config.split_bn=True needs a model with split BatchNorm (arat.split_batchnorm)")
    if not c.split_bn and has_split_bn(model):
        raise ValueError("config.split_bn=False needs a model without split BatchNorm")
    layers = check_layers(model, c.layers if c.layers is not None else default_layers(model))
    heads = None
    if c.invariance == "asymmetric" and c.predictor and c.gamma > 0:
        probe = torch.zeros((2, 1, 8, 8), device=device)
        was = model.training
        model.eval()
        with torch.no_grad():
            _, feats = forward_features(model, probe, layers)
        model.train(was)
        heads = predictors(
            {k: v.shape[1] for k, v in feats.items()}, ratio=c.ratio, seed=seed + 1, device=device
        )
    return layers, heads


def train(
    model: nn.Module,
    x: torch.Tensor,
    y: torch.Tensor,
    config: TrainConfig,
    *,
    seed: int = 0,
    threads: int = 1,
) -> Trained:
    """Train ``model`` in place on ``x: (n, 1, 8, 8)`` in [0, 1], ``y: (n,)`` int64 (on the model's device).

    ``seed`` fixes the batch order and the attack noise (two generators), so every objective trained with
    the same seed sees the same batches and the same random starts; the init is the model's own.
    """
    import time

    c = check_instance_config(config)
    model, x, y = check_model_data(model, x, y)
    if len(x) < 2:
        raise ValueError(f"x must hold at least 2 images (BatchNorm in train mode), got {len(x)}")
    seed, threads = check_seed(seed), check_int(threads, "threads", low=1)
    device = x.device
    layers, heads = _setup(model, c, seed, device)
    params = list(model.parameters()) + (list(heads.parameters()) if heads is not None else [])
    opt = SGD(params, lr=c.lr, momentum=c.momentum, weight_decay=c.weight_decay)
    order_gen = torch.Generator(device=device).manual_seed(seed)
    attack_gen = torch.Generator(device=device).manual_seed(seed + 7919)
    sub = torch.randperm(len(x), generator=torch.Generator(device=device).manual_seed(seed + 1))[
        : c.balance_subset
    ]
    losses, balance, lrs, cpu = [], [], [], []  # balance: (w_adv, w_clean) per epoch
    with torch_threads(threads):
        for epoch in range(c.epochs):
            t0 = time.process_time()
            lr = lr_at(c, epoch)
            opt.lr = lr
            ce = replace(c, eps=eps_at(c, epoch)) if epoch < c.eps_warmup else c
            if c.objective == "arat" and c.auto_balance:
                weights = auto_balance_weights(_clean_accuracy(model, x[sub], y[sub]), c.kappa)
            else:
                weights = (c.w_adv, c.w_clean)
            model.train()
            if heads is not None:
                heads.train()
            total = torch.zeros((), device=device)
            for idx in torch.randperm(len(x), generator=order_gen, device=device).split(c.batch_size):
                if len(idx) < 2:
                    continue  # BatchNorm needs two samples
                loss = batch_loss(model, heads, x[idx], y[idx], ce, layers, weights, attack_gen)
                if not torch.isfinite(loss):
                    raise FloatingPointError(f"the training loss became {float(loss)} at epoch {epoch}")
                opt.zero_grad()
                loss.backward()
                opt.step()
                total += loss.detach() * len(idx)
            losses.append(float(total) / len(x))
            balance.append(weights)
            lrs.append(lr)
            cpu.append(time.process_time() - t0)
    model.eval()
    w = np.asarray(balance, dtype=float).reshape(-1, 2)
    return Trained(model, heads, np.asarray(losses), w[:, 0], w[:, 1], np.asarray(lrs), np.asarray(cpu))


def check_instance_config(config: object) -> TrainConfig:
    if not isinstance(config, TrainConfig):
        raise TypeError(f"config must be an arat.TrainConfig, got {type(config).__name__}")
    return config
