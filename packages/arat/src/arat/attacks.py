"""L-infinity attacks for training and evaluation.

PGD (Madry et al. 2018; official ``attacks.py``, ``PGD_linf``) on a loss ``l``:

    x_0     = clip(x + U(-eps, eps))    (``start="uniform"``; TRADES: x + 0.001 N(0, 1), ``start="normal"``)
    x_{t+1} = clip(x + P_eps(x_t + alpha sign(grad_x l(f(x_t), y)) - x))

with ``l`` the summed CE (``"ce"``), the Carlini-Wagner margin ``max_{j!=y} z_j - z_y`` (``"cw"``) or
TRADES' ``KL(p(x) || p(x_t))`` (``"kl"``). ``train_mode=True`` runs the model in train mode, so that
BatchNorm uses batch statistics and its running statistics see the attack's iterates (the official ARAT
code does this; most AT code bases attack in eval mode); the model's mode is restored.

APGD-CE (Croce & Hein, ICML 2020, the first attack of AutoAttack): step size ``eta = 2 eps`` halved at the
checkpoints ``w_j ~ p_j N``, ``p_0 = 0, p_1 = 0.22, p_{j+1} = p_j + max(p_j - p_{j-1} - 0.03, 0.06)``,
when fewer than ``rho = 0.75`` of the steps since the last checkpoint increased the loss, or when ``eta``
and the best loss did not change since the last checkpoint; then the iterate restarts at the best point.
Momentum ``0.75``: ``z = P(x_k + eta sign(g)),  x_{k+1} = P(x_k + 0.75 (z - x_k) + 0.25 (x_k - x_{k-1}))``.
Every iterate is checked: a sample counts as broken if any iterate misclassifies it.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from paperkit.validation import check_bool, check_choice, check_int, check_positive
from paperkit.vision.common import check_generator
from torch import nn

from arat.checks import check_model_data
from arat.losses import cw_margin_loss

__all__ = ["LOSSES", "apgd_ce", "apgd_checkpoints", "pgd", "pgd_kernel"]

LOSSES = ("ce", "cw", "kl")
STARTS = ("uniform", "normal", "none")


def _check_inputs(model: nn.Module, x: torch.Tensor, y: torch.Tensor, eps: float) -> float:
    check_model_data(model, x, y)
    return check_positive(eps, "eps", strict=False)


def _loss(
    model: nn.Module, adv: torch.Tensor, y: torch.Tensor, loss: str, p_clean: torch.Tensor | None
) -> torch.Tensor:
    out = model(adv)
    if loss == "ce":
        return F.cross_entropy(out, y, reduction="sum")
    if loss == "cw":
        return cw_margin_loss(out, y).sum()
    assert p_clean is not None
    return F.kl_div(F.log_softmax(out, 1), p_clean, reduction="sum")


def pgd_kernel(
    model: nn.Module,
    x: torch.Tensor,
    y: torch.Tensor,
    *,
    eps: float,
    alpha: float,
    steps: int,
    loss: str,
    start: str,
    generator: torch.Generator | None,
    train_mode: bool,
) -> torch.Tensor:
    """:func:`pgd` without checks (the training loops call this once per batch)."""
    was_training = model.training
    model.train(train_mode)
    try:
        x0 = x.detach()
        p_clean = None
        if loss == "kl":
            with torch.no_grad():
                p_clean = F.softmax(model(x0), 1)
        if start == "uniform":
            u = torch.rand(x0.shape, generator=generator, device=x0.device, dtype=x0.dtype)
            adv = (x0 + (2 * u - 1) * eps).clamp(0, 1)
        elif start == "normal":
            n = torch.randn(x0.shape, generator=generator, device=x0.device, dtype=x0.dtype)
            adv = (x0 + 0.001 * n).clamp(0, 1)
        else:
            adv = x0.clone()
        for _ in range(steps):
            adv.requires_grad_(True)
            with torch.enable_grad():
                (grad,) = torch.autograd.grad(_loss(model, adv, y, loss, p_clean), adv)
            adv = (x0 + (adv.detach() + alpha * grad.sign() - x0).clamp(-eps, eps)).clamp(0, 1)
        return adv.detach()
    finally:
        model.train(was_training)


def pgd(
    model: nn.Module,
    x: torch.Tensor,
    y: torch.Tensor,
    *,
    eps: float,
    alpha: float | None = None,
    steps: int = 10,
    loss: str = "ce",
    start: str = "uniform",
    generator: torch.Generator | None = None,
    train_mode: bool = False,
) -> torch.Tensor:
    """Adversarial examples ``(batch, c, h, w)`` in the eps-ball around ``x`` (pixels in [0, 1]).

    ``alpha`` defaults to ``eps / 4``; ``generator`` draws the random start (``torch.Generator`` on
    ``x``'s device; ``None``: torch's global RNG). ``steps=0`` with ``start="none"`` returns ``x``.
    """
    eps = _check_inputs(model, x, y, eps)
    steps = check_int(steps, "steps", low=0)
    alpha = eps / 4 if alpha is None else check_positive(alpha, "alpha")
    loss, start = check_choice(loss, "loss", LOSSES), check_choice(start, "start", STARTS)
    if generator is not None:
        check_generator(generator, x)
    return pgd_kernel(
        model,
        x,
        y,
        eps=eps,
        alpha=alpha,
        steps=steps,
        loss=loss,
        start=start,
        generator=generator,
        train_mode=check_bool(train_mode, "train_mode"),
    )


def apgd_checkpoints(steps: int) -> list[int]:
    """The iterations at which APGD may halve its step, in AutoAttack's integer form of the p_j: the first
    after ``int(0.22 N)``, then gaps shrinking by ``int(0.03 N)`` down to ``int(0.06 N)`` (at least 1)."""
    gap, shrink, low = max(int(0.22 * steps), 1), int(0.03 * steps), max(int(0.06 * steps), 1)
    out, k = [], gap
    while k <= steps:
        out.append(k)
        gap = max(gap - shrink, low)
        k += gap
    return out


def apgd_ce(
    model: nn.Module,
    x: torch.Tensor,
    y: torch.Tensor,
    *,
    eps: float,
    steps: int = 100,
    generator: torch.Generator | None = None,
) -> torch.Tensor:
    """APGD on the CE loss (eval mode); returns, per sample, the first misclassified iterate, else the
    highest-loss one."""
    eps = _check_inputs(model, x, y, eps)
    steps = check_int(steps, "steps", low=1)
    if generator is not None:
        check_generator(generator, x)
    checks, rho = set(apgd_checkpoints(steps)), 0.75
    was_training = model.training
    model.eval()
    try:
        x0 = x.detach()
        shape = (-1,) + (1,) * (x0.ndim - 1)

        def proj(z: torch.Tensor) -> torch.Tensor:
            return (x0 + (z - x0).clamp(-eps, eps)).clamp(0, 1)

        def loss_grad(z: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
            z = z.detach().requires_grad_(True)
            with torch.enable_grad():
                out = model(z)
                per = F.cross_entropy(out, y, reduction="none")
                (g,) = torch.autograd.grad(per.sum(), z)
            return per.detach(), g, out.detach().argmax(1) != y

        u = torch.rand(x0.shape, generator=generator, device=x0.device, dtype=x0.dtype)
        xk = proj(x0 + (2 * u - 1) * eps)
        eta = torch.full((len(x0),), 2 * eps, device=x0.device, dtype=x0.dtype)
        lk, g, fooled = loss_grad(xk)
        out, best_x, best_l = xk.clone(), xk.clone(), lk.clone()
        out[fooled] = xk[fooled]
        x_prev, n_up = xk.clone(), torch.zeros_like(lk)
        last_eta, last_best, last_check = eta.clone(), best_l.clone(), 0
        for k in range(steps):
            z = proj(xk + eta.view(shape) * g.sign())
            x_new = z if k == 0 else proj(xk + 0.75 * (z - xk) + 0.25 * (xk - x_prev))
            x_prev, xk = xk, x_new
            l_new, g, bad = loss_grad(xk)
            newly = bad & ~fooled
            out[newly], fooled = xk[newly], fooled | bad
            n_up += (l_new > lk).to(lk.dtype)
            improved = l_new > best_l
            best_x[improved], best_l[improved], lk = xk[improved], l_new[improved], l_new
            if k + 1 in checks:
                span = k + 1 - last_check
                halve = (n_up < rho * span) | ((last_eta == eta) & (last_best == best_l))
                last_eta, last_best = eta.clone(), best_l.clone()
                eta = torch.where(halve, eta / 2, eta)
                xk = torch.where(halve.view(shape), best_x, xk)
                n_up, last_check = torch.zeros_like(lk), k + 1
                if halve.any():
                    lk, g, _ = loss_grad(xk)
        out[~fooled] = best_x[~fooled]
        return out.detach()
    finally:
        model.train(was_training)
