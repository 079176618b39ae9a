"""Poisoning attacks on a test batch: the malicious last ``m`` slots are perturbed to hurt the benign rest.

Notation (tta-attack-official.md sections 3 and 5): ``X`` is the clean batch of ``B`` images, the benign
slots are the first ``B - m``, ``delta`` lives on the last ``m``; ``phi(x_i; X)`` and ``f(x_i; X)`` are the
pooled feature and the logits when every BatchNorm uses the statistics of the batch ``X``.

Sign-PGD (both attacks)::

    delta_0 = 0.5 - x_M                                 (grey start, "init='grey'"; or 0 / U[0, 1))
    delta   <- clip_[-eps, eps](delta + s * alpha * sign(G_t));   delta <- clip_[0,1](x_M + delta) - x_M

DIA (Wu et al., ICML 2023; released ``dia.py``): ascent (``s = +1``) on the benign cross-entropy
``mean_{i in S_b} CE(f(x_i; X~), y_i)``; ``G_t`` the current gradient. DIA-pseudo: ``y_i`` replaced by the
argmax of the *current* adversarial-batch logits, detached, recomputed every step.

FCA (released ``fca.py``), once per batch: hard pseudo-labels ``yhat = argmax f(x; X)`` on the clean batch,
centroids ``c_k <- 0.6 c_k + 0.4 mean{phi(x_i; X): yhat_i = k}`` over all ``B`` clean samples (only the
classes predicted), and ``z0_i = phi(x_i; X)``; then descent (``s = -1``) on::

    L(delta) = mean_{i in S_b} [ cos(z0_i, z_i) - cos(z_i, zbar) + cos(z_i, c_{yhat_i}) ]
    z_i = phi(x_i; X + delta),  zbar = mean_{j in S_b} z_j  (not detached)

with ``G_t = sum_{s <= t} grad L(delta_s)`` when ``accumulate_grad`` (the released file never zeroes the
gradient) or the current gradient otherwise. Defaults: eps 8/255, alpha 2/255, 100 steps, 20 % malicious.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import torch
from paperkit.validation import check_bool, check_choice, check_instance, check_int, check_number
from paperkit.vision.common import check_images
from torch import nn
from torch.nn import functional as F

from tta_attack.models import check_bn_model, features_logits

__all__ = [
    "ATTACKS",
    "INITS",
    "AttackConfig",
    "Crafted",
    "centroid_update",
    "craft",
    "fca_loss",
    "malicious_count",
    "sign_pgd",
]

ATTACKS = ("none", "random", "dia", "dia_pseudo", "fca")
INITS = ("grey", "zero", "uniform")
CENTROID_MOMENTUM = 0.6  # fca.py: c <- 0.6 c + 0.4 batch mean


@dataclass(frozen=True)
class AttackConfig:
    """PGD budget shared by every attack. Defaults: ``config/conf.py`` of the official code (6c608b5)."""

    eps: float = 8 / 255  # DIA.EPS
    alpha: float = 2 / 255  # DIA.ALPHA
    steps: int = 100  # DIA.STEPS
    malicious: float = 0.2  # DIA.MAL_PORTION: m = ceil(0.2 B)
    init: str = "grey"  # Algorithm 1 step 2 (reviewer 3: "initialised with 0.5"); conf.py stores 'random'
    accumulate_grad: bool = True  # fca.py never zeroes adv.grad (dia.py does)

    def __post_init__(self) -> None:
        check_number(self.eps, "eps", low=0.0)
        check_number(self.alpha, "alpha", low=0.0)
        check_int(self.steps, "steps", low=0)
        check_number(self.malicious, "malicious", low=0.0, high=1.0, low_open=True, high_open=True)
        check_choice(self.init, "init", INITS)
        check_bool(self.accumulate_grad, "accumulate_grad")


@dataclass(frozen=True)
class Crafted:
    """``x``: the poisoned batch ``(B, C, H, W)`` (benign rows untouched); ``centroids``: FCA's updated
    ``(classes, d)`` centroids (the input ones, or ``None``, for the other attacks)."""

    x: torch.Tensor
    centroids: torch.Tensor | None


def malicious_count(batch: int, share: float) -> int:
    """``m = ceil(share * batch)`` (main.py), refusing a share outside (0, 1) or no benign slot left."""
    share = check_number(share, "malicious share", low=0.0, high=1.0, low_open=True, high_open=True)
    batch = check_int(batch, "batch", low=2)
    m = math.ceil(share * batch - 1e-9)
    if m >= batch:
        raise ValueError(f"malicious share {share} leaves no benign slot in a batch of {batch}")
    return m


def centroid_update(
    centroids: torch.Tensor, feats: torch.Tensor, labels: torch.Tensor, momentum: float = CENTROID_MOMENTUM
) -> torch.Tensor:
    """``c_k <- momentum c_k + (1 - momentum) mean{feats_i : labels_i = k}`` for the classes present."""
    onehot = F.one_hot(labels, centroids.shape[0]).to(feats.dtype)  # (n, K)
    counts = onehot.sum(0)
    means = (onehot.T @ feats) / counts.clamp(min=1)[:, None]
    present = (counts > 0)[:, None]
    return torch.where(present, momentum * centroids + (1 - momentum) * means, centroids)


def fca_loss(
    z: torch.Tensor, z0: torch.Tensor, centroids: torch.Tensor, labels: torch.Tensor
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """FCA's descended loss and its three terms (each a benign mean): ``scatter = cos(z0, z)``,
    ``collapse = cos(z, zbar)`` (subtracted), ``centroid = cos(z, c_yhat)``."""
    zbar = z.mean(0, keepdim=True)
    scatter = F.cosine_similarity(z0, z, dim=1, eps=1e-6).mean()
    collapse = F.cosine_similarity(z, zbar, dim=1, eps=1e-6).mean()
    centroid = F.cosine_similarity(z, centroids[labels], dim=1, eps=1e-6).mean()
    return scatter - collapse + centroid, {"scatter": scatter, "collapse": collapse, "centroid": centroid}


def _init_delta(x_m: torch.Tensor, init: str, generator: torch.Generator | None) -> torch.Tensor:
    if init == "grey":
        return 127.5 / 255 - x_m
    if init == "zero":
        return torch.zeros_like(x_m)
    if generator is None:
        raise ValueError("init='uniform' needs a generator (its randomness is explicit)")
    return torch.rand(x_m.shape, generator=generator, device=x_m.device, dtype=x_m.dtype)


def sign_pgd(
    objective: Callable[[torch.Tensor], torch.Tensor],
    x: torch.Tensor,
    m: int,
    config: AttackConfig,
    *,
    ascend: bool,
    accumulate: bool,
    generator: torch.Generator | None = None,
) -> torch.Tensor:
    """Sign-PGD on the last ``m`` rows of ``x`` for ``objective(batch) -> scalar`` (module docstring)."""
    x_b, x_m = x[:-m].detach(), x[-m:].detach()
    delta = _init_delta(x_m, config.init, generator)
    g_sum = torch.zeros_like(x_m)
    s = 1.0 if ascend else -1.0
    for _ in range(config.steps):
        d = delta.detach().requires_grad_(True)
        (g,) = torch.autograd.grad(objective(torch.cat([x_b, x_m + d])), d)
        g_sum = g_sum + g if accumulate else g
        delta = (delta + s * config.alpha * g_sum.sign()).clamp(-config.eps, config.eps)
        delta = (x_m + delta).clamp(0.0, 1.0) - x_m
    if config.steps == 0:  # no step taken: the start is still projected into the ball
        delta = (x_m + delta.clamp(-config.eps, config.eps)).clamp(0.0, 1.0) - x_m
    return torch.cat([x_b, x_m + delta]).detach()


def _fca(
    model: nn.Module,
    x: torch.Tensor,
    m: int,
    config: AttackConfig,
    centroids: torch.Tensor | None,
    generator: torch.Generator | None,
) -> Crafted:
    nb = len(x) - m
    with torch.no_grad():
        feats, logits = features_logits(model, x)
        labels = logits.argmax(1)
        c0 = torch.zeros(logits.shape[1], feats.shape[1], device=x.device) if centroids is None else centroids
        cents = centroid_update(c0, feats, labels)
    z0, yb = feats[:nb], labels[:nb]

    def objective(xt: torch.Tensor) -> torch.Tensor:
        return fca_loss(features_logits(model, xt)[0][:nb], z0, cents, yb)[0]

    adv = sign_pgd(
        objective, x, m, config, ascend=False, accumulate=config.accumulate_grad, generator=generator
    )
    return Crafted(adv, cents)


def _dia(
    model: nn.Module,
    x: torch.Tensor,
    m: int,
    config: AttackConfig,
    labels: torch.Tensor | None,
    generator: torch.Generator | None,
) -> Crafted:
    nb = len(x) - m

    def objective(xt: torch.Tensor) -> torch.Tensor:
        logits = model(xt)[:nb]
        y = logits.detach().argmax(1) if labels is None else labels[:nb]
        return F.cross_entropy(logits, y)

    return Crafted(
        sign_pgd(objective, x, m, config, ascend=True, accumulate=False, generator=generator), None
    )


def craft(
    name: str,
    model: nn.Module,
    x: torch.Tensor,
    config: AttackConfig,
    *,
    labels: torch.Tensor | None = None,
    centroids: torch.Tensor | None = None,
    generator: torch.Generator | None = None,
) -> Crafted:
    """Poison the last ``ceil(config.malicious * B)`` rows of the clean batch ``x (B, C, H, W)`` in [0, 1].

    ``model`` is the attacker's surrogate, as the TTA method configures it (train-mode BN); its
    parameters are not changed. ``labels`` (true labels of the batch) are read by ``"dia"`` only; every
    other attack is label-free. ``centroids`` carries FCA's EMA across the batches of a stream;
    ``generator`` draws ``"random"``'s noise (uniform in the eps-ball) and a uniform PGD start.
    """
    name = check_choice(name, "attack", ATTACKS)
    check_bn_model(model)
    x = check_images(x).detach()
    config = check_instance(config, "config", AttackConfig)
    m = malicious_count(len(x), config.malicious)
    if name == "none":
        return Crafted(x.clone(), centroids)
    if name == "random":
        if generator is None:
            raise ValueError("attack 'random' needs a generator (its noise is explicit)")
        u = torch.rand(x[-m:].shape, generator=generator, device=x.device, dtype=x.dtype)
        noisy = (x[-m:] + (2 * u - 1) * config.eps).clamp(0.0, 1.0)
        return Crafted(torch.cat([x[:-m], noisy]), centroids)
    if name == "fca":
        return _fca(model, x, m, config, centroids, generator)
    if name == "dia" and labels is None:
        raise ValueError("attack 'dia' needs the true labels (use 'dia_pseudo' for the label-free variant)")
    return _dia(model, x, m, config, labels if name == "dia" else None, generator)
