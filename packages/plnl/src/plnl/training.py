"""Trainers: a single-loss CLL baseline (SCL-LOG, PC, ...), POCR, and PLNL (pre-training + two networks).

Recipe (official code, ``methods/plnl.py``, ``methods/scl-log.py``, ``utils/utils_pretrain.py``):

- SGD, momentum 0.9, weight decay 1e-4, batch 64, lr 0.1. Baselines and PLNL's pre-training:
  MultiStepLR at 1/2 and 3/4 of the epochs, x0.1 (official: 100 and 150 of 200). PLNL's phase: fresh
  optimisers at lr 0.1, cosine annealing over the phase (official ``T_max = 200``, ``eta_min = 1e-3``).
- PLNL pre-training: one network on SCL-LOG for ``pre_epochs``; both networks start from it.
- PLNL epoch ``e``, network ``nu`` then its peer: per batch ``L = L_sup + L_comp + min(e/ramp, 1) L_cons``
  with the flags and pseudo-labels stored before this batch (a guess made now is used on the next visit);
  PLG (``e >= weps``) from the peer's last ``qs`` epochs of logits; after the epoch NLE (``e >= weps``) from
  this network's epoch logits; then the logits join this network's queue. As in the official code the
  label state (``C``, flags, pseudo-labels) is one, shared by both networks (both loaders wrap one dataset).
- Test: ``0.5 (f_t + f_s)`` in eval mode.

Views (digits, spec): original = the image; weak = random +-1 px shift; strong = shift + Gaussian noise
(sigma 0.1) + a 3x3 cutout. Logits stored for PLG/NLE are the original view's, in train mode (official).

A last mini-batch of one example is merged into the previous one (BatchNorm needs two).
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np
import torch
from paperkit import (
    check_bool,
    check_choice,
    check_instance,
    check_int,
    check_number,
    check_positive,
    check_seed,
)
from paperkit.vision import add_noise, compose, cutout, random_shift
from paperkit.vision.common import check_images
from torch import nn

from plnl.checks import check_generator, check_model, check_same_device
from plnl.labels import check_complementary, check_labels
from plnl.losses import (
    LOSSES,
    consistency_kl,
    consistency_target,
    scl_log,
    supervised_bce,
)
from plnl.recovery import knn_indices, negative_label_enhancement, positive_label_guessing

__all__ = [
    "LabelState",
    "PLNLConfig",
    "PLNLFit",
    "TrainConfig",
    "fit_plnl",
    "plnl_epoch",
    "predict",
    "strong_view",
    "train_cll",
    "weak_view",
]

ModelFn = Callable[[int], nn.Module]

weak_view = functools.partial(random_shift, max_shift=1)
strong_view = compose(
    functools.partial(random_shift, max_shift=1),
    functools.partial(add_noise, std=0.1),
    functools.partial(cutout, size=3),
)


@dataclass(frozen=True)
class TrainConfig:
    """The shared optimisation budget (official defaults)."""

    epochs: int = 200  # official -eps
    lr: float = 0.1  # official -lr (0.01 for STL-10)
    weight_decay: float = 1e-4  # official -wd
    momentum: float = 0.9  # official SGD
    batch_size: int = 64  # official -bs
    cons_ramp: float = 100.0  # official POCR / PLNL: weight min(epoch / 100, 1)

    def __post_init__(self) -> None:
        check_int(self.epochs, "epochs", low=1)
        check_positive(self.lr, "lr")
        check_positive(self.weight_decay, "weight_decay", strict=False)
        check_number(self.momentum, "momentum", low=0.0, high=1.0, high_open=True)
        check_int(self.batch_size, "batch_size", low=2)
        check_positive(self.cons_ramp, "cons_ramp")


@dataclass(frozen=True)
class PLNLConfig:
    """PLNL's hyper-parameters; defaults from the official ``methods/plnl.py`` argparse block."""

    train: TrainConfig = field(default_factory=TrainConfig)  # the PLNL phase (epochs = -eps = 200)
    pre_epochs: int = 200  # official -pre_eps (SCL-LOG pre-training)
    lam: float = 0.99  # official -lam (PLG threshold; -lam2 = 0.90 is declared but unused)
    k: int = 500  # official -k (neighbours; 1% of CIFAR's 50k)
    t: float = 0.1  # official -t (enhancement extent)
    qs: int = 3  # official -qs (queue of epochs)
    weps: int = 20  # official -weps (PLG/NLE start)
    plg: bool = True  # ablation: without positive label guessing
    nle: bool = True  # ablation: without negative label enhancement
    two_networks: bool = True  # ablation: one network reading its own queue
    constant_add: int | None = None  # ablation: NLE adds this many to every row instead of a_i

    def __post_init__(self) -> None:
        check_instance(self.train, "train", TrainConfig)
        check_int(self.pre_epochs, "pre_epochs", low=0)
        check_number(self.lam, "lam", low=0.0)
        check_int(self.k, "k", low=1)
        check_positive(self.t, "t", strict=False)
        check_int(self.qs, "qs", low=1)
        check_int(self.weps, "weps", low=0)
        for name in ("plg", "nle", "two_networks"):
            check_bool(getattr(self, name), name)
        if self.constant_add is not None:
            check_int(self.constant_add, "constant_add", low=0)

    def scaled(self, **changes: object) -> PLNLConfig:
        return replace(self, **changes)  # type: ignore[arg-type]


def _batches(n: int, batch_size: int, gen: torch.Generator, device: torch.device) -> list[torch.Tensor]:
    parts = list(torch.randperm(n, generator=gen, device=device).split(batch_size))
    if len(parts) > 1 and len(parts[-1]) == 1:
        parts[-2:] = [torch.cat(parts[-2:])]
    return parts


def _sgd(model: nn.Module, cfg: TrainConfig) -> torch.optim.SGD:
    return torch.optim.SGD(
        model.parameters(), lr=cfg.lr, momentum=cfg.momentum, weight_decay=cfg.weight_decay
    )


def _multistep(opt: torch.optim.Optimizer, epochs: int) -> torch.optim.lr_scheduler.MultiStepLR:
    return torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[epochs // 2, (3 * epochs) // 4], gamma=0.1)


def check_data(x: object, C: object, C_name: str = "C") -> tuple[torch.Tensor, torch.Tensor]:
    """``(x, C)``: finite floating images ``(n, channels, h, w)``, a valid ``(n, K)`` ``C`` on x's device."""
    xt = check_images(x, "x")  # type: ignore[arg-type]
    if len(xt) < 2:
        raise ValueError(f"x must hold at least 2 images (BatchNorm needs two), got {len(xt)}")
    if not isinstance(C, torch.Tensor):
        raise TypeError(f"{C_name} must be a torch.Tensor, got {type(C).__name__}")
    check_same_device(xt, "x", C, C_name)
    Ct = check_complementary(C, C_name)
    if len(Ct) != len(xt):
        raise ValueError(f"{C_name} has {len(Ct)} rows for {len(xt)} images in x")
    return xt, Ct


def train_cll(
    model: nn.Module,
    x: torch.Tensor,
    C: torch.Tensor,
    *,
    loss: str,
    cfg: TrainConfig,
    seed: int,
    consistency: bool = False,
) -> np.ndarray:
    """Train ``model`` in place on one loss of :data:`~plnl.losses.LOSSES` (``consistency``: add POCR's
    ``min(e/ramp, 1) (KL(q||weak) + KL(q||strong))``); returns the per-epoch mean training loss."""
    check_model(model)
    x, C = check_data(x, C)
    loss = check_choice(loss, "loss", tuple(LOSSES))
    check_instance(cfg, "cfg", TrainConfig)
    seed, consistency = check_seed(seed), check_bool(consistency, "consistency")
    gen = torch.Generator(device=x.device).manual_seed(seed)
    fn = LOSSES[loss]
    if loss in ("nn", "free"):
        fn = functools.partial(fn, prior=C.mean(0))
    fn = functools.partial(fn, check=False)  # checked above, once  # class prior of the complementary labels
    opt = _sgd(model, cfg)
    sched = _multistep(opt, cfg.epochs)
    history = []
    model.train()
    for epoch in range(cfg.epochs):
        total = torch.zeros((), device=x.device)
        for idx in _batches(len(x), cfg.batch_size, gen, x.device):
            xb, Cb = x[idx], C[idx]
            out = model(xb)
            value = fn(out, Cb)
            if consistency:
                q = consistency_target(out, Cb, check=False)
                cons = consistency_kl(model(weak_view(xb, gen)), q, check=False) + consistency_kl(
                    model(strong_view(xb, gen)), q, check=False
                )
                value = value + min(epoch / cfg.cons_ramp, 1.0) * cons
            opt.zero_grad(set_to_none=True)
            value.backward()
            opt.step()
            total += value.detach() * len(idx)
        sched.step()
        history.append(float(total) / len(x))
    return np.asarray(history)


@torch.no_grad()
def predict(models: tuple[nn.Module, ...], x: torch.Tensor) -> torch.Tensor:
    """``(m, K)`` mean logits of ``models`` in eval mode (PLNL's test-time ensemble ``0.5 (f_t + f_s)``)."""
    check_instance(models, "models", (tuple, list))
    if not models:
        raise ValueError("models must hold at least one network, got none")
    for i, m in enumerate(models):
        check_model(m, f"models[{i}]")
    x = check_images(x, "x")
    outs = []
    for m in models:
        was = m.training
        m.eval()
        outs.append(m(x))
        m.train(was)
    return torch.stack(outs).mean(0)


@dataclass
class LabelState:
    """The label state the networks share: current ``C``, PLG flags and pseudo-labels (official dataset)."""

    C: torch.Tensor
    flags: torch.Tensor
    y_hat: torch.Tensor

    def __post_init__(self) -> None:
        if not isinstance(self.C, torch.Tensor):
            raise TypeError(f"C must be a torch.Tensor, got {type(self.C).__name__}")
        n = len(check_complementary(self.C, "C"))
        for name, dtype in (("flags", torch.bool), ("y_hat", torch.int64)):
            v = getattr(self, name)
            if not isinstance(v, torch.Tensor) or v.dtype != dtype:
                raise TypeError(
                    f"{name} must be a {dtype} tensor, got {getattr(v, 'dtype', type(v).__name__)}"
                )
            if v.shape != (n,):
                raise ValueError(f"{name} must have shape ({n},) to match C's rows, got {tuple(v.shape)}")
            check_same_device(self.C, "C", v, name)


@dataclass(frozen=True)
class PLNLFit:
    """A trained PLNL: ``models`` (t, s) or (t,), the final label state and per-epoch diagnostics.

    ``history`` keys (lists over PLNL epochs, fractions of the n training examples): ``flagged`` (flagged
    by PLG), ``added`` (labels added by NLE per example), and with ``y_true``: ``plg_right`` (flagged with
    the right pseudo-label) and ``nle_wrong`` (examples whose true class NLE added: the official
    "negative precision" is ``1 - nle_wrong``). PLG precision = ``plg_right / flagged``; NLE precision
    (added labels that are truly wrong) = ``1 - nle_wrong / added``.
    """

    models: tuple[nn.Module, ...]
    C: torch.Tensor
    flags: torch.Tensor
    y_hat: torch.Tensor
    history: dict[str, list[float]]


def plnl_epoch(
    model: nn.Module, opt: torch.optim.Optimizer, state: LabelState, peer_queue: list[torch.Tensor],
    x: torch.Tensor, C0: torch.Tensor, *, epoch: int, cfg: PLNLConfig, gen: torch.Generator,
) -> torch.Tensor:  # fmt: skip
    """One network's epoch (updates ``state`` in place); returns its ``(n, K)`` epoch logits."""
    check_model(model)
    check_instance(opt, "opt", torch.optim.Optimizer)
    check_instance(state, "state", LabelState)
    x, C0 = check_data(x, C0, "C0")
    if state.C.shape != C0.shape:
        raise ValueError(f"state.C must have C0's shape {tuple(C0.shape)}, got {tuple(state.C.shape)}")
    check_instance(peer_queue, "peer_queue", list)
    for i, q in enumerate(peer_queue):
        if not isinstance(q, torch.Tensor) or q.shape != C0.shape:
            raise ValueError(f"peer_queue[{i}] must be an (n, K) = {tuple(C0.shape)} tensor of logits")
    epoch = check_int(epoch, "epoch", low=0)
    check_instance(cfg, "cfg", PLNLConfig)
    gen = check_generator(gen, x)
    tc = cfg.train
    active = epoch >= cfg.weps
    probs_q = (
        torch.softmax(torch.stack(peer_queue[-cfg.qs :]), 2)
        if cfg.plg and active and len(peer_queue) >= cfg.qs
        else None
    )
    logits = torch.zeros_like(C0)
    w = min(epoch / tc.cons_ramp, 1.0)
    model.train()
    for idx in _batches(len(x), tc.batch_size, gen, x.device):
        xb, Cb = x[idx], state.C[idx]
        conf, yh = state.flags[idx], state.y_hat[idx]  # read before this batch's guesses (one-visit lag)
        out = model(xb)
        logits[idx] = out.detach()
        if probs_q is not None:
            f, g = positive_label_guessing(probs_q[:, idx], Cb, lam=cfg.lam, check=False)
            state.flags[idx], state.y_hat[idx] = f, g
        q = consistency_target(out, Cb, check=False)  # the data were checked on entry, not per batch
        weak, strong = model(weak_view(xb, gen)), model(strong_view(xb, gen))
        cons = consistency_kl(weak, q, check=False) + consistency_kl(strong, q, check=False)
        value = supervised_bce(out[conf], yh[conf], check=False) + scl_log(out, Cb, check=False) + w * cons
        opt.zero_grad(set_to_none=True)
        value.backward()
        opt.step()
    if cfg.nle and active:
        knn = knn_indices(logits, cfg.k)
        state.C = negative_label_enhancement(
            C0, knn, torch.softmax(logits, 1), t=cfg.t, constant=cfg.constant_add
        )
    return logits


def _diagnostics(state: LabelState, C0: torch.Tensor, y_true: torch.Tensor | None) -> dict[str, float]:
    added = state.C - C0
    out = {"flagged": float(state.flags.float().mean()), "added": float(added.sum(1).mean())}
    if y_true is not None:
        n = len(C0)
        out["plg_right"] = float(((state.y_hat == y_true) & state.flags).float().mean())
        out["nle_wrong"] = float(added[torch.arange(n, device=C0.device), y_true].mean())  # on the true class
    return out


def _check_y_true(y_true: object, C0: torch.Tensor) -> torch.Tensor | None:
    if y_true is None:
        return None
    if not isinstance(y_true, torch.Tensor):
        raise TypeError(f"y_true must be a torch.Tensor or None, got {type(y_true).__name__}")
    check_same_device(C0, "C0", y_true, "y_true")
    check_complementary(C0, "C0", y=y_true)  # labels in range, one per row, never marked complementary
    check_labels(y_true, C0.shape[1], "y_true", every_class=False)
    return y_true


def fit_plnl(
    model_fn: ModelFn, x: torch.Tensor, C0: torch.Tensor, *, cfg: PLNLConfig, seed: int,
    y_true: torch.Tensor | None = None,
) -> PLNLFit:  # fmt: skip
    """Pre-train on SCL-LOG, then run PLNL; ``y_true`` only feeds the diagnostics (never the training)."""
    if not callable(model_fn):
        raise TypeError(f"model_fn must be callable (seed -> nn.Module), got {type(model_fn).__name__}")
    x, C0 = check_data(x, C0, "C0")
    check_instance(cfg, "cfg", PLNLConfig)
    seed = check_seed(seed)
    y_true = _check_y_true(y_true, C0)
    base = model_fn(seed)
    if cfg.pre_epochs:
        train_cll(base, x, C0, loss="scl_log", cfg=replace(cfg.train, epochs=cfg.pre_epochs), seed=seed)
    names = ("t", "s") if cfg.two_networks else ("t",)
    models = {nu: copy.deepcopy(base) for nu in names}
    opts = {nu: _sgd(models[nu], cfg.train) for nu in names}
    T = cfg.train.epochs
    scheds = {
        nu: torch.optim.lr_scheduler.CosineAnnealingLR(opts[nu], T_max=T, eta_min=min(1e-3, cfg.train.lr))
        for nu in names
    }
    gens = {nu: torch.Generator(device=x.device).manual_seed(seed + 1 + i) for i, nu in enumerate(names)}
    queues: dict[str, list[torch.Tensor]] = {nu: [] for nu in names}
    n = len(x)
    state = LabelState(
        C0.clone(),
        torch.zeros(n, dtype=torch.bool, device=x.device),
        torch.zeros(n, dtype=torch.int64, device=x.device),
    )
    history: dict[str, list[float]] = {}
    for epoch in range(T):
        before = dict(queues)  # PLG reads the peer's epochs e-qs .. e-1, never the peer's epoch e
        for nu in names:
            peer = before[names[-1] if nu == names[0] else names[0]]
            logits = plnl_epoch(models[nu], opts[nu], state, peer, x, C0, epoch=epoch, cfg=cfg, gen=gens[nu])
            queues[nu] = [*queues[nu][-(cfg.qs - 1) :], logits] if cfg.qs > 1 else [logits]
            scheds[nu].step()
        for key, v in _diagnostics(state, C0, y_true).items():
            history.setdefault(key, []).append(v)
    return PLNLFit(tuple(models[nu] for nu in names), state.C, state.flags, state.y_hat, history)
