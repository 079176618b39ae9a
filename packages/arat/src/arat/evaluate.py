"""Evaluation on the test-time branch (``"adv"``) and the gradient-conflict diagnostic.

Robust accuracy is reported per attack and as the per-sample worst case over all of them (a sample is
robust only if every attack fails on it):

- ``pgd_ce``: PGD-``steps`` on CE, step ``eps/10`` (spec: PGD-20, step eps/10), ``restarts`` uniform starts;
- ``pgd_cw``: the same on the Carlini-Wagner margin;
- ``apgd_ce``: APGD-CE (Croce & Hein 2020), ``apgd_steps`` iterations, one start ("partial AutoAttack":
  AutoAttack's first attack only; the official code reports full AutoAttack, not available offline).

Gradient conflict (the paper's Fig. 2): on one batch, with ``x'`` from PGD, the gradients with respect to
the network's parameters of the classification loss CE(f(x'), y) and of each half of the symmetric loss,
``A = Dist(z', sg z)`` (pulls adversarial toward clean) and ``B = Dist(sg z', z)`` (pulls clean toward
adversarial). Reported: the fraction of scalar parameters where both gradients are nonzero and have
opposite signs, and the cosine between the flattened gradients.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from paperkit.validation import check_instance, check_int, check_positive, check_seed
from torch import nn

from arat.attacks import apgd_ce, pgd_kernel
from arat.checks import check_model_data
from arat.features import check_layers, forward_features
from arat.layers import use_branch
from arat.losses import cosine_distance

__all__ = ["ATTACKS", "EvalConfig", "accuracy", "gradient_conflict", "robust_accuracy"]

ATTACKS = ("pgd_ce", "pgd_cw", "apgd_ce")


@dataclass(frozen=True)
class EvalConfig:
    """The evaluation attacks (spec: PGD-20, step eps/10, + a CW-margin PGD; the issue: + APGD-CE)."""

    eps: float = 0.35
    steps: int = 20
    alpha: float | None = None  # None: eps / 10
    restarts: int = 2
    apgd_steps: int = 50
    attacks: tuple[str, ...] = ATTACKS

    def __post_init__(self) -> None:
        check_positive(self.eps, "eps", strict=False)
        check_int(self.steps, "steps", low=1)
        check_int(self.restarts, "restarts", low=1)
        check_int(self.apgd_steps, "apgd_steps", low=1)
        if self.alpha is not None:
            check_positive(self.alpha, "alpha")
        if isinstance(self.attacks, str) or not isinstance(self.attacks, tuple | list):
            raise TypeError(f"attacks must be a tuple of attack names from {ATTACKS}, got {self.attacks!r}")
        bad = [a for a in self.attacks if a not in ATTACKS]
        if bad or not self.attacks:
            raise ValueError(f"attacks must be a non-empty subset of {ATTACKS}, got {self.attacks}")


@torch.no_grad()
def _correct(model: nn.Module, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return model(x).argmax(1) == y


def accuracy(model: nn.Module, x: torch.Tensor, y: torch.Tensor, *, branch: str = "adv") -> float:
    """Clean accuracy of ``model`` in eval mode on ``branch``."""
    model, x, y = check_model_data(model, x, y)
    was = model.training
    model.eval()
    with use_branch(model, branch):
        acc = float(_correct(model, x, y).float().mean())
    model.train(was)
    return acc


def robust_accuracy(
    model: nn.Module,
    x: torch.Tensor,
    y: torch.Tensor,
    config: EvalConfig,
    *,
    seed: int = 0,
    branch: str = "adv",
) -> dict[str, float]:
    """``{"clean", <attack>..., "worst"}`` accuracies on ``branch`` (eval mode, BN running statistics)."""
    model, x, y = check_model_data(model, x, y)
    check_instance(config, "config", EvalConfig)
    gen = torch.Generator(device=x.device).manual_seed(check_seed(seed))
    alpha = config.eps / 10 if config.alpha is None else config.alpha
    was = model.training
    model.eval()
    out: dict[str, float] = {}
    with use_branch(model, branch):
        clean = _correct(model, x, y)
        out["clean"] = float(clean.float().mean())
        worst = clean.clone()
        for name in config.attacks:
            ok = clean.clone()
            for _ in range(config.restarts if name != "apgd_ce" else 1):
                if name == "apgd_ce":
                    adv = apgd_ce(model, x, y, eps=config.eps, steps=config.apgd_steps, generator=gen)
                else:
                    adv = pgd_kernel(
                        model,
                        x,
                        y,
                        eps=config.eps,
                        alpha=alpha,
                        steps=config.steps,
                        loss=name[4:],
                        start="uniform",
                        generator=gen,
                        train_mode=False,
                    )
                ok &= _correct(model, adv, y)
            out[name] = float(ok.float().mean())
            worst &= ok
        out["worst"] = float(worst.float().mean())
    model.train(was)
    return out


def _flat_grad(loss: torch.Tensor, params: Sequence[torch.Tensor]) -> torch.Tensor:
    grads = torch.autograd.grad(loss, params, retain_graph=True, allow_unused=True)
    return torch.cat(
        [(g if g is not None else torch.zeros_like(p)).flatten() for g, p in zip(grads, params, strict=True)]
    )


def gradient_conflict(
    model: nn.Module,
    x: torch.Tensor,
    y: torch.Tensor,
    *,
    layers: Sequence[str],
    eps: float,
    steps: int = 7,
    seed: int = 0,
) -> dict[str, float]:
    """Sign-conflict fractions and cosines between grad CE(f(x'), y) and grad A, grad B (module docstring),
    for a shared-BN ``model`` in train mode (as during training); ``x: (batch >= 2, 1, h, w)``."""
    model, x, y = check_model_data(model, x, y)
    if len(x) < 2:
        raise ValueError(f"x must hold at least 2 images (BatchNorm in train mode), got {len(x)}")
    layers = check_layers(model, layers)
    eps, steps = check_positive(eps, "eps", strict=False), check_int(steps, "steps", low=1)
    gen = torch.Generator(device=x.device).manual_seed(check_seed(seed))
    was = model.training
    model.train()
    try:
        adv = pgd_kernel(
            model,
            x,
            y,
            eps=eps,
            alpha=eps / 4,
            steps=steps,
            loss="ce",
            start="uniform",
            generator=gen,
            train_mode=True,
        )
        params = [p for p in model.parameters() if p.requires_grad]
        out_a, fa = forward_features(model, adv, layers)
        _, fc = forward_features(model, x, layers)
        g_cls = _flat_grad(F.cross_entropy(out_a, y), params)
        term_a = torch.stack([cosine_distance(fa[k], fc[k].detach()) for k in layers]).mean()
        term_b = torch.stack([cosine_distance(fa[k].detach(), fc[k]) for k in layers]).mean()
        res: dict[str, float] = {}
        for tag, term in (("a", term_a), ("b", term_b)):
            g = _flat_grad(term, params)
            both = (g != 0) & (g_cls != 0)
            res[f"conflict_{tag}"] = float(((g * g_cls < 0) & both).sum() / both.sum().clamp(min=1))
            res[f"cosine_{tag}"] = float(F.cosine_similarity(g, g_cls, dim=0))
        return res
    finally:
        model.train(was)
