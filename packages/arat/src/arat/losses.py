"""The losses of ARAT and its baselines.

Distance (official ``AlignLoss.loss_func``, ``"cos-sim"``), a batch mean in [0, 2]:

    Dist(u, v) = 1 - mean_i cos(u_i, v_i)

Naive (symmetric) invariance, the paper's starting point (rebuttal Eq. 5; official ``align_type="x->y,y->x"``
without predictor):

    L_sym(z', z) = 1/2 [ Dist(z', sg(z)) + Dist(sg(z'), z) ]

The second term pulls the *clean* representation toward the adversarial one; its gradient is the one
that conflicts with classification (the paper's Fig. 2).

ARAT's asymmetric invariance (official ``align_type="x->y"``, ``is_use_predictor_xx=True``):

    L_asym(z', z) = Dist(h(z'), sg(z))

Automatic balancing of the two classification losses (official ``is_auto_balance_ce_loss``):

    w_adv = acc^kappa,   w_clean = (1 - acc)^kappa,   kappa = 1 (``auto_bal_prev_acc_weight``)

with ``acc`` the clean branch's training accuracy at the start of the epoch.

TRADES (Zhang et al. 2019, official yaodongyu/TRADES): ``CE(f(x), y) + beta KL(p(x) || p(x'))``, batch mean.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from paperkit.validation import check_instance, check_number, check_positive
from torch import nn

from arat.checks import check_features, check_targets

__all__ = [
    "asymmetric_invariance",
    "auto_balance_weights",
    "cosine_distance",
    "cw_margin_loss",
    "symmetric_invariance",
    "trades_kl",
]


def _check_pair(u: torch.Tensor, v: torch.Tensor, names: tuple[str, str]) -> None:
    for t, n in zip((u, v), names, strict=True):
        check_features(t, n)
    if u.device != v.device:
        raise ValueError(f"{names[0]} is on {u.device} but {names[1]} is on {v.device}")
    if u.shape != v.shape:
        raise ValueError(
            f"{names[0]} and {names[1]} must have the same shape, got {tuple(u.shape)} and {tuple(v.shape)}"
        )


def cosine_distance(u: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """``1 - mean cos(u_i, v_i)`` for ``u, v: (batch, d)``; a scalar in [0, 2]."""
    _check_pair(u, v, ("u", "v"))
    return 1 - F.cosine_similarity(u, v, dim=-1).mean()


def symmetric_invariance(z_adv: torch.Tensor, z_clean: torch.Tensor) -> torch.Tensor:
    """``1/2 [Dist(z', sg z) + Dist(sg z', z)]`` (gradient flows into both branches)."""
    _check_pair(z_adv, z_clean, ("z_adv", "z_clean"))
    return 0.5 * (cosine_distance(z_adv, z_clean.detach()) + cosine_distance(z_adv.detach(), z_clean))


def asymmetric_invariance(
    z_adv: torch.Tensor, z_clean: torch.Tensor, predictor: nn.Module | None = None
) -> torch.Tensor:
    """``Dist(h(z'), sg z)``: only the adversarial branch (and the predictor ``h``) receives gradient;
    ``predictor=None`` is the stop-gradient-only ablation ``Dist(z', sg z)``."""
    _check_pair(z_adv, z_clean, ("z_adv", "z_clean"))
    p = z_adv if predictor is None else check_instance(predictor, "predictor", nn.Module)(z_adv)
    return cosine_distance(p, z_clean.detach())


def auto_balance_weights(clean_accuracy: float, kappa: float = 1.0) -> tuple[float, float]:
    """``(w_adv, w_clean) = (acc^kappa, (1 - acc)^kappa)`` for the clean branch's accuracy ``acc``."""
    acc = check_number(clean_accuracy, "clean_accuracy", low=0.0, high=1.0)
    kappa = check_positive(kappa, "kappa")
    return acc**kappa, (1.0 - acc) ** kappa


def trades_kl(logits_adv: torch.Tensor, logits_clean: torch.Tensor) -> torch.Tensor:
    """``KL(p(x) || p(x'))`` summed over classes, averaged over the batch (TRADES' robust term)."""
    _check_pair(logits_adv, logits_clean, ("logits_adv", "logits_clean"))
    return F.kl_div(F.log_softmax(logits_adv, 1), F.softmax(logits_clean, 1), reduction="batchmean")


def cw_margin_loss(logits: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Per-sample ``max_{j != y} z_j - z_y`` (CW margin; > 0 means misclassified), ``(batch,)``."""
    logits = check_features(logits, "logits")
    if logits.shape[1] < 2:
        raise ValueError(f"logits must have at least 2 classes, got shape {tuple(logits.shape)}")
    y = check_targets(y, len(logits), classes=logits.shape[1])
    if y.device != logits.device:
        raise ValueError(f"y is on {y.device} but logits is on {logits.device}")
    z_y = logits.gather(1, y[:, None])[:, 0]
    other = logits.masked_fill(F.one_hot(y, logits.shape[1]).bool(), float("-inf")).amax(1)
    return other - z_y
