"""PLNL, its ablations and the CLL baselines behind one registry.

Every method is ``call(x, C, x_eval, *, epochs, pre_epochs, lr, seed, device, y_true=None, cons_ramp) -> Fit``
(the PLNL methods also take ``lam, k, t, qs, weps``; a baseline refuses them with a TypeError):
``x (n, 1, s, s)`` float images with complementary labels ``C (n, K)``, and the images to score,
``x_eval (m, 1, s, s)``. The budget is the same for every method: ``pre_epochs + epochs`` epochs per network
(PLNL: ``pre_epochs`` of SCL-LOG pre-training, then ``epochs`` of PLNL; a baseline: all of them on its
loss). The same seed gives every method the same first network (init) and, for the baselines, the same
data order. ``y_true`` feeds PLNL's diagnostics only.

Model: ``paperkit.vision.mlp(64, (256, 256), K, norm="batch")`` (the spec's MLP 64-256-256-10 with BN;
official: ResNet-18 variants).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
from paperkit import check_choice, check_instance, check_int, check_positive, check_seed, torch_threads
from paperkit.vision import mlp
from torch import nn

from plnl.checks import check_device
from plnl.labels import check_complementary
from plnl.training import PLNLConfig, TrainConfig, fit_plnl, predict, train_cll

__all__ = ["METHODS", "Fit", "MethodInfo", "build_model", "run_method"]

HIDDEN = (256, 256)


@dataclass(frozen=True)
class Fit:
    """``eval_logits (m, K)`` on ``x_eval`` (ensembles: the mean of the networks' logits), the number of
    networks, and per-epoch ``history`` (PLNL's PLG/NLE diagnostics; a baseline's training loss)."""

    eval_logits: torch.Tensor
    n_networks: int
    history: dict[str, list[float]] = field(default_factory=dict)


@dataclass(frozen=True)
class MethodInfo:
    """A registry entry: its family (``"plnl"`` or ``"baseline"``), networks at test time, the entry."""

    family: str
    networks: int
    call: Callable[..., Fit]


def build_model(in_dim: int, n_classes: int, *, seed: int, device: str = "cpu") -> nn.Module:
    """The spec's MLP ``in_dim -> 256 -> 256 -> K`` with BatchNorm and ReLU, seeded."""
    check_int(n_classes, "n_classes", low=2)
    device = str(check_device(device))
    return mlp(in_dim, HIDDEN, n_classes, norm="batch", seed=seed, device=device)


def _check_images(x: object, name: str) -> torch.Tensor:
    t: torch.Tensor = check_instance(x, name, torch.Tensor)  # type: ignore[assignment]
    if t.ndim != 4 or not t.is_floating_point() or len(t) == 0:
        raise ValueError(f"{name} must be a floating (n >= 1, channels, h, w) tensor, got {tuple(t.shape)}")
    if not bool(torch.isfinite(t).all()):
        raise ValueError(f"{name} must be finite")
    return t


def _setup(
    x: object, C: object, x_eval: object, *, epochs: object, pre_epochs: object, lr: object, seed: object,
    y_true: object, device: object,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, int, int, float, int]:  # fmt: skip
    check_device(device)
    xt, xe = _check_images(x, "x"), _check_images(x_eval, "x_eval")
    if y_true is not None and not isinstance(y_true, torch.Tensor):
        raise TypeError(f"y_true must be a torch.Tensor or None, got {type(y_true).__name__}")
    Ct = check_complementary(C, "C", y=y_true).to(xt.device)
    if len(Ct) != len(xt):
        raise ValueError(f"C has {len(Ct)} rows for {len(xt)} images in x")
    if xe.shape[1:] != xt.shape[1:]:
        raise ValueError(f"x_eval images {tuple(xe.shape[1:])} must match x's {tuple(xt.shape[1:])}")
    ep, pre = check_int(epochs, "epochs", low=1), check_int(pre_epochs, "pre_epochs", low=0)
    return xt, Ct, xe, ep, pre, check_positive(lr, "lr"), check_seed(seed)


def _baseline(loss: str, *, networks: int = 1, consistency: bool = False) -> Callable[..., Fit]:
    def call(
        x: torch.Tensor, C: torch.Tensor, x_eval: torch.Tensor, *, epochs: int, pre_epochs: int = 0,
        lr: float = 0.1, seed: int, device: str = "cpu", y_true: torch.Tensor | None = None,
        cons_ramp: float = 100.0,
    ) -> Fit:  # fmt: skip
        xt, Ct, xe, ep, pre, lr_, s = _setup(
            x,
            C,
            x_eval,
            epochs=epochs,
            pre_epochs=pre_epochs,
            lr=lr,
            seed=seed,
            y_true=y_true,
            device=device,
        )
        if loss in ("nn", "free") and bool((Ct.sum(1) != 1).any()):
            raise ValueError(f"C must hold exactly one complementary label per row for the {loss} loss")
        cfg = TrainConfig(epochs=ep + pre, lr=lr_, cons_ramp=cons_ramp)
        K, d = Ct.shape[1], int(xt[0].numel())
        models, hist = [], {}
        with torch_threads(1):
            for j in range(networks):
                m = build_model(d, K, seed=s + j, device=device)
                h = train_cll(
                    m, xt.to(device), Ct.to(device), loss=loss, cfg=cfg, seed=s + j, consistency=consistency
                )
                models.append(m)
                hist[f"loss{j}"] = h.tolist()
            logits = predict(tuple(models), xe.to(device))
        return Fit(logits, networks, hist)

    return call


def _plnl(**variant: Any) -> Callable[..., Fit]:
    def call(
        x: torch.Tensor, C: torch.Tensor, x_eval: torch.Tensor, *, epochs: int, pre_epochs: int = 200,
        lr: float = 0.1, seed: int, device: str = "cpu", y_true: torch.Tensor | None = None,
        cons_ramp: float = 100.0, lam: float = 0.99, k: int = 500, t: float = 0.1, qs: int = 3,
        weps: int = 20,
    ) -> Fit:  # fmt: skip
        xt, Ct, xe, ep, pre, lr_, s = _setup(
            x,
            C,
            x_eval,
            epochs=epochs,
            pre_epochs=pre_epochs,
            lr=lr,
            seed=seed,
            y_true=y_true,
            device=device,
        )
        cfg = PLNLConfig(
            train=TrainConfig(epochs=ep, lr=lr_, cons_ramp=cons_ramp), pre_epochs=pre, lam=lam, k=k, t=t,
            qs=qs, weps=weps, **variant,
        )  # fmt: skip
        K, d = Ct.shape[1], int(xt[0].numel())
        yt = None if y_true is None else torch.as_tensor(y_true, device=device)
        with torch_threads(1):
            fit = fit_plnl(
                lambda sd: build_model(d, K, seed=sd, device=device), xt.to(device), Ct.to(device),
                cfg=cfg, seed=s, y_true=yt,
            )  # fmt: skip
            logits = predict(fit.models, xe.to(device))
        return Fit(logits, len(fit.models), fit.history)

    return call


METHODS: dict[str, MethodInfo] = {
    "plnl": MethodInfo("plnl", 2, _plnl()),
    "plnl_no_plg": MethodInfo("plnl", 2, _plnl(plg=False)),
    "plnl_no_nle": MethodInfo("plnl", 2, _plnl(nle=False)),
    "plnl_single": MethodInfo("plnl", 1, _plnl(two_networks=False)),
    "plnl_const_nle": MethodInfo("plnl", 2, _plnl(constant_add=1)),
    "scl_log": MethodInfo("baseline", 1, _baseline("scl_log")),
    "scl_log_ens": MethodInfo("baseline", 2, _baseline("scl_log", networks=2)),
    "scl_exp": MethodInfo("baseline", 1, _baseline("scl_exp")),
    "ub_log": MethodInfo("baseline", 1, _baseline("ub_log")),
    "ub_exp": MethodInfo("baseline", 1, _baseline("ub_exp")),
    "pc": MethodInfo("baseline", 1, _baseline("pc")),
    "forward": MethodInfo("baseline", 1, _baseline("forward")),
    "nn": MethodInfo("baseline", 1, _baseline("nn")),
    "free": MethodInfo("baseline", 1, _baseline("free")),
    "pocr": MethodInfo("baseline", 1, _baseline("scl_log", consistency=True)),
}


def run_method(name: str, x: torch.Tensor, C: torch.Tensor, x_eval: torch.Tensor, **kw: Any) -> Fit:
    """Run the registry method ``name`` (one of :data:`METHODS`)."""
    return METHODS[check_choice(name, "name", tuple(METHODS))].call(x, C, x_eval, **kw)
