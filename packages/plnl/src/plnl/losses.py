"""Complementary-label losses (official ``utils/utils_algo.py``) and PLNL's supervised and consistency terms.

``f``: ``(b, K)`` logits, ``p = softmax(f)``, ``C``: ``(b, K)`` 0/1 complementary labels,
``|C_i| = sum_k C_ik``.
Every loss is a mean over the batch (a scalar tensor, differentiable in ``f``). Every function checks its
arguments (TypeError/ValueError naming the argument); ``check=False`` skips that, for the trainers, which
check their data once on entry rather than on every mini-batch.

- SCL-LOG (Chou et al. 2020): ``-mean_i sum_k C_ik log(1 - p_ik + 1e-8)``.
- SCL-EXP: ``mean_i sum_k C_ik exp(p_ik)``.
- UB-LOG: ``-mean_i (K-1)/|C_i| log(sum_{k not in C_i} p_ik + 1e-8)``.
- UB-EXP: ``mean_i (K-1)/|C_i| exp(-sum_{k not in C_i} p_ik)``.
- PC (Ishida et al. 2017, sigmoid loss, the sign of their code ``takashiishida/comp``):
  ``(K-1) mean_i (1/|C_i|) sum_{c in C_i} sum_k sigmoid(f_ic - f_ik) - K(K-1)/2 + (K-1)``. The PLNL
  repository's multi-label PC writes ``-(K-1) ... + K(K-1)/2``, which maximises the pairwise loss and
  drives the complementary logit up (1.4% test accuracy in our first full run, RESULTS.md).
- Forward (uniform transition ``Q = (1 - I)/(K-1)``): ``-mean_i sum_k C_ik log((p Q)_ik)``.
- NN / Free (Ishida et al. 2019, one complementary label ``cbar_i`` per example, class prior ``pi_k`` of
  the complementary labels, ``l_ij = -log p_ij``): per class ``j``,
  ``R_j = sum_k pi_k mean_{i: cbar_i = k} l_ij - (K-1) pi_j mean_{i: cbar_i = j} l_ij`` (terms of classes
  absent from the batch are 0), loss ``sum_j max(R_j, -beta)``; NN is ``beta = 0``, Free ``beta = inf``.
- Supervised (PLG's pseudo-labels, official ``supervised_loss``): ``BCEWithLogits(f, onehot(y_hat))``, the
  mean over examples x classes (binary cross-entropy, not softmax CE); 0 for an empty batch.
- Consistency (PLNL and POCR): target ``q_i = (1 - C_i) * p_i / sum_k (1 - C_ik) p_ik`` from the original
  view (detached; a zero denominator becomes 1), ``KL(q + 1e-8 || softmax f_aug)`` with
  ``nn.KLDivLoss(reduction="batchmean")``: ``sum_ik (q+1e-8) (log(q+1e-8) - log_softmax(f_aug)) / b``.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F
from paperkit import check_number

from plnl.checks import check_same_device, check_scores
from plnl.labels import check_complementary

__all__ = [
    "LOSSES",
    "consistency_kl",
    "consistency_target",
    "forward_loss",
    "free_loss",
    "nn_loss",
    "pc_loss",
    "scl_exp",
    "scl_log",
    "supervised_bce",
    "ub_exp",
    "ub_log",
]

EPS = 1e-8  # the official code's log guard


def _checked(f: object, C: object, f_name: str = "f") -> tuple[torch.Tensor, torch.Tensor]:
    """``(f, C)`` checked: finite floating ``(b, K)`` logits, a valid 0/1 ``C`` of that shape, one device."""
    ft = check_scores(f, f_name)
    if not isinstance(C, torch.Tensor):
        raise TypeError(f"C must be a torch.Tensor, got {type(C).__name__}")
    check_same_device(ft, f_name, C, "C")
    if tuple(C.shape) != tuple(ft.shape):
        raise ValueError(f"C must have {f_name}'s shape {tuple(ft.shape)}, got {tuple(C.shape)}")
    return ft, check_complementary(C, "C")


def scl_log(f: torch.Tensor, C: torch.Tensor, *, check: bool = True) -> torch.Tensor:
    if check:
        f, C = _checked(f, C)
    p = F.softmax(f, dim=1)
    return -(torch.log(1.0 - p + EPS) * C).sum(1).mean()


def scl_exp(f: torch.Tensor, C: torch.Tensor, *, check: bool = True) -> torch.Tensor:
    if check:
        f, C = _checked(f, C)
    return (torch.exp(F.softmax(f, dim=1)) * C).sum(1).mean()


def ub_log(f: torch.Tensor, C: torch.Tensor, *, check: bool = True) -> torch.Tensor:
    if check:
        f, C = _checked(f, C)
    K = f.shape[1]
    cand = (F.softmax(f, dim=1) * (1 - C)).sum(1) + EPS
    return -((K - 1) / C.sum(1) * torch.log(cand)).mean()


def ub_exp(f: torch.Tensor, C: torch.Tensor, *, check: bool = True) -> torch.Tensor:
    if check:
        f, C = _checked(f, C)
    K = f.shape[1]
    cand = (F.softmax(f, dim=1) * (1 - C)).sum(1)
    return ((K - 1) / C.sum(1) * torch.exp(-cand)).mean()


def pc_loss(f: torch.Tensor, C: torch.Tensor, *, check: bool = True) -> torch.Tensor:
    if check:
        f, C = _checked(f, C)
    K = f.shape[1]
    pair = torch.sigmoid(f[:, :, None] - f[:, None, :])  # (b, c, k): sigmoid(f_c - f_k)
    per = (C[:, :, None] * pair).sum((1, 2)) / C.sum(1)
    return (K - 1) * per.mean() - K * (K - 1) / 2 + (K - 1)


def forward_loss(f: torch.Tensor, C: torch.Tensor, *, check: bool = True) -> torch.Tensor:
    if check:
        f, C = _checked(f, C)
    K = f.shape[1]
    Q = (torch.ones(K, K, device=f.device, dtype=f.dtype) - torch.eye(K, device=f.device, dtype=f.dtype)) / (
        K - 1
    )
    q = F.softmax(f, dim=1) @ Q
    return -(torch.log(q) * C).sum() / len(f)


def _check_prior(f: torch.Tensor, C: torch.Tensor, prior: object) -> None:
    prior = check_scores(prior, "prior", ndim=1, shape=(f.shape[1],))
    check_same_device(f, "f", prior, "prior")
    if bool((prior < 0).any()):
        raise ValueError("prior must be non-negative (class frequencies of the complementary labels)")
    if bool((C.sum(1) != 1).any()):
        raise ValueError("C must hold exactly one complementary label per row for the NN / Free risks")


def _nn_risks(f: torch.Tensor, C: torch.Tensor, prior: torch.Tensor, check: bool) -> torch.Tensor:
    """``(K,)`` per-class partial risks ``R_j`` of Ishida et al. (2019) on one batch."""
    if check:
        f, C = _checked(f, C)
    K = f.shape[1]
    if check:
        _check_prior(f, C, prior)
    cbar = C.argmax(1)
    neglog = -F.log_softmax(f, dim=1)  # (b, K)
    onehot = F.one_hot(cbar, K).to(f.dtype)  # (b, K): which complementary class each example has
    count = onehot.sum(0)  # (K,)
    means = (onehot.T @ neglog) / count.clamp(min=1)[:, None]  # (k, j): mean over i with cbar=k of l_ij
    present = (count > 0).to(f.dtype)
    first = (prior * present) @ means  # sum_k pi_k mean_{cbar=k} l_kj  -> (j,)
    second = -(K - 1) * prior * present * torch.diagonal(means)
    return first + second


def nn_loss(
    f: torch.Tensor, C: torch.Tensor, prior: torch.Tensor, beta: float = 0.0, *, check: bool = True
) -> torch.Tensor:
    """Non-negative risk estimator (``beta = 0``); needs exactly one complementary label per row."""
    beta = check_number(beta, "beta", low=0.0, finite=False)
    return torch.clamp(_nn_risks(f, C, prior, check), min=-beta).sum()


def free_loss(f: torch.Tensor, C: torch.Tensor, prior: torch.Tensor, *, check: bool = True) -> torch.Tensor:
    """Assumption-free (unbiased) risk estimator: :func:`nn_loss` with ``beta = inf``."""
    return _nn_risks(f, C, prior, check).sum()


def _check_y_hat(f: object, y_hat: object) -> None:
    f = check_scores(f, "f")
    if not isinstance(y_hat, torch.Tensor) or y_hat.dtype != torch.int64:
        raise TypeError(f"y_hat must be an int64 tensor, got {getattr(y_hat, 'dtype', type(y_hat).__name__)}")
    if y_hat.shape != (len(f),):
        raise ValueError(f"y_hat must have shape ({len(f)},) to match f's rows, got {tuple(y_hat.shape)}")
    check_same_device(f, "f", y_hat, "y_hat")
    if bool(((y_hat < 0) | (y_hat >= f.shape[1])).any()):
        raise ValueError(f"y_hat must hold classes in 0 .. {f.shape[1] - 1}")


def supervised_bce(f: torch.Tensor, y_hat: torch.Tensor, *, check: bool = True) -> torch.Tensor:
    """BCE-with-logits of ``f (b, K)`` against ``onehot(y_hat)``; ``0`` when ``b = 0`` (no confident row)."""
    if check:
        _check_y_hat(f, y_hat)
    if len(f) == 0:
        return f.sum() * 0.0
    return F.binary_cross_entropy_with_logits(f, F.one_hot(y_hat, f.shape[1]).to(f.dtype))


def consistency_target(f: torch.Tensor, C: torch.Tensor, *, check: bool = True) -> torch.Tensor:
    """``(b, K)`` detached target: ``softmax(f)`` on the non-complementary classes, renormalised."""
    if check:
        f, C = _checked(f, C)
    with torch.no_grad():
        q = (1 - C) * F.softmax(f, dim=1)
        s = q.sum(1, keepdim=True)
        return q / torch.where(s == 0, torch.ones_like(s), s)


def consistency_kl(f_aug: torch.Tensor, target: torch.Tensor, *, check: bool = True) -> torch.Tensor:
    """``KLDivLoss(batchmean)(log_softmax(f_aug), target + 1e-8)``."""
    if check:
        f_aug = check_scores(f_aug, "f_aug")
        target = check_scores(target, "target", shape=tuple(f_aug.shape))
        check_same_device(f_aug, "f_aug", target, "target")
        if bool((target < 0).any()):
            raise ValueError("target must be a non-negative distribution per row")
    return F.kl_div(F.log_softmax(f_aug, dim=1), target + EPS, reduction="batchmean")


# name -> loss(f, C) for the single-loss baselines trained by ``training.train_cll`` (NN and Free take the
# complementary-label class prior as well; the trainer binds it).
LOSSES: dict[str, Callable[..., torch.Tensor]] = {
    "scl_log": scl_log,
    "scl_exp": scl_exp,
    "ub_log": ub_log,
    "ub_exp": ub_exp,
    "pc": pc_loss,
    "forward": forward_loss,
    "nn": nn_loss,
    "free": free_loss,
}
