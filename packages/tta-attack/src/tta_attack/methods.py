"""The attack registry: FCA (the paper's method) and its baselines, with declared capabilities.

``run_attack(name, x, y, source=model, ...)`` poisons one batch against a TTA victim that starts from
``source`` and returns the poisoned batch and the victim's error rates: the three-line notebook entry.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass

import torch
from paperkit.validation import check_seed
from paperkit.vision.common import as_device, check_images, check_labels
from torch import nn

from tta_attack.attacks import AttackConfig, craft, malicious_count
from tta_attack.models import check_bn_model
from tta_attack.tta import Adapter, fisher_diagonal

__all__ = ["METHODS", "AttackInfo", "AttackOutcome", "run_attack"]


@dataclass(frozen=True)
class AttackInfo:
    """``label_free``: never reads the benign labels; ``optimised``: runs PGD; ``paper``: the paper's own."""

    name: str
    label_free: bool
    optimised: bool
    paper: bool
    summary: str
    call: Callable[..., AttackOutcome]


@dataclass(frozen=True)
class AttackOutcome:
    """``x``: the poisoned batch; errors of the victim's pre-update predictions on the benign / malicious
    slots of the poisoned batch, and on the benign slots of the clean batch."""

    x: torch.Tensor
    benign_error: float
    malicious_error: float
    clean_benign_error: float


def run_attack(
    name: str,
    x: torch.Tensor,
    y: torch.Tensor,
    *,
    source: nn.Module,
    method: str = "tent",
    eps: float = 8 / 255,
    alpha: float = 2 / 255,
    steps: int = 100,
    malicious: float = 0.2,
    seed: int = 0,
    device: str | torch.device = "cpu",
) -> AttackOutcome:
    """Poison the last ``ceil(malicious * B)`` images of ``x (B, C, H, W)`` with attack ``name`` against the
    TTA ``method`` started from ``source`` (a BatchNorm model); ``y (B,)`` scores (and feeds "dia")."""
    cfg = AttackConfig(eps=eps, alpha=alpha, steps=steps, malicious=malicious)
    dev = as_device(device)
    check_bn_model(source, "source")
    x = check_images(x, "x").to(dev)
    y = check_labels(y, len(x), "y").to(dev)
    seed = check_seed(seed)
    nb = len(x) - malicious_count(len(x), cfg.malicious)
    src = copy.deepcopy(source).to(dev)
    fisher = fisher_diagonal(src, x[:nb]) if method == "eata" else None
    victim = Adapter(method, src, fisher=fisher)
    gen = torch.Generator(device=dev).manual_seed(seed)
    out = craft(name, victim.model, x, cfg, labels=y if name == "dia" else None, generator=gen)
    clean = victim.predict(x)
    logits = victim.predict(out.x)

    def err(lg: torch.Tensor, yy: torch.Tensor) -> float:
        return float((lg.argmax(1) != yy).float().mean())

    return AttackOutcome(out.x, err(logits[:nb], y[:nb]), err(logits[nb:], y[nb:]), err(clean[:nb], y[:nb]))


def _entry(name: str) -> Callable[..., AttackOutcome]:
    def call(x: torch.Tensor, y: torch.Tensor, **kw: object) -> AttackOutcome:
        return run_attack(name, x, y, **kw)  # type: ignore[arg-type]

    call.__name__ = f"run_{name}"
    return call


METHODS: dict[str, AttackInfo] = {
    "fca": AttackInfo("fca", True, True, True, "feature collapse attack (released fca.py)", _entry("fca")),
    "dia": AttackInfo("dia", False, True, False, "DIA with the true benign labels", _entry("dia")),
    "dia_pseudo": AttackInfo(
        "dia_pseudo", True, True, False, "DIA with per-step pseudo-labels", _entry("dia_pseudo")
    ),
    "random": AttackInfo("random", True, False, False, "uniform noise in the eps-ball", _entry("random")),
    "none": AttackInfo("none", True, False, False, "no attack", _entry("none")),
}
