r"""Preference losses on sequence log-probabilities: DPO (with margin and label smoothing), IPO, ORPO,
SimPO, and Plackett–Luce listwise DPO. Pure torch; every loss is the mean over the (P,) pairs.

Inputs are what :func:`paperkit.lm.sequence_logprobs` gives: a sequence's summed response log-probability
``logp`` under the policy, and for the reference-based losses its log-ratio ``logratio = logp − logp_ref``.
With h = logratio_chosen − logratio_rejected:

- DPO (Rafailov et al. 2023): −log σ(β h − m), m a margin (``margin``; ODPO's offset when per pair); with
  label smoothing ε (cDPO): −(1 − ε) log σ(β h − m) − ε log σ(−(β h − m)).
- IPO (Azar et al. 2024): (h − 1/(2τ))².
- ORPO (Hong et al. 2024), reference-free: NLL_chosen − λ log σ(log odds_w − log odds_l), with the mean
  token log-probability m̄ = logp / length, odds = p̄ / (1 − p̄), p̄ = exp(m̄), NLL_chosen = −m̄_w.
- SimPO (Meng et al. 2024), reference-free, length-normalised and scaled: −log σ(β (m̄_w − m̄_l) − γ).
- DPO-PL: the Plackett–Luce list form of DPO over (B, N) rewards ranked by scores.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor


def _positive(name: str, value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}")
    if value <= 0 or not math.isfinite(value):
        raise ValueError(f"{name} must be a positive finite number, got {value}")


def _pair(chosen: Tensor, rejected: Tensor, what: str, loss: str) -> None:
    if not isinstance(chosen, Tensor) or not isinstance(rejected, Tensor):
        raise TypeError(f"{loss}: the chosen and rejected {what} must be tensors")
    if chosen.shape != rejected.shape:
        raise ValueError(f"chosen {tuple(chosen.shape)} and rejected {tuple(rejected.shape)} differ")
    if chosen.numel() == 0:
        raise ValueError(f"{loss} needs at least one pair, got none")


def _lengths(length: Tensor, like: Tensor, name: str) -> Tensor:
    length = torch.as_tensor(length, device=like.device)
    if length.shape != like.shape:
        raise ValueError(f"{name} has shape {tuple(length.shape)}, expected {tuple(like.shape)}")
    if not bool((length > 0).all()):
        raise ValueError(f"{name} must be > 0 (response tokens of each sequence)")
    return length.to(like.dtype)


def dpo_loss(
    logratio_chosen: Tensor,
    logratio_rejected: Tensor,
    beta: float,
    *,
    margin: float | Tensor = 0.0,
    label_smoothing: float = 0.0,
) -> Tensor:
    """DPO: mean of −log σ(β (log-ratio_w − log-ratio_l) − margin) over (P,) pairs of sequence log-ratios.

    Args:
        margin: a float, or a (P,) tensor of per-pair offsets (ODPO); 0 is plain DPO.
        label_smoothing: ε in [0, 0.5): the conservative DPO of a label flipped with probability ε.
    """
    _positive("beta", beta)
    _pair(logratio_chosen, logratio_rejected, "log-ratios", "dpo_loss")
    if not 0.0 <= label_smoothing < 0.5:
        raise ValueError(f"label_smoothing must be in [0, 0.5), got {label_smoothing}")
    z = beta * (logratio_chosen - logratio_rejected)
    if isinstance(margin, Tensor):
        if margin.shape != z.shape:
            raise ValueError(f"margin has shape {tuple(margin.shape)}, expected {tuple(z.shape)}")
        z = z - margin
    elif margin != 0.0:
        if not math.isfinite(margin):
            raise ValueError(f"margin must be finite, got {margin}")
        z = z - margin
    if label_smoothing == 0.0:
        return -F.logsigmoid(z).mean()
    return (-(1.0 - label_smoothing) * F.logsigmoid(z) - label_smoothing * F.logsigmoid(-z)).mean()


def ipo_loss(logratio_chosen: Tensor, logratio_rejected: Tensor, tau: float) -> Tensor:
    """IPO: mean of (log-ratio_w − log-ratio_l − 1/(2τ))² over (P,) pairs (τ as TRL's ``beta``)."""
    _positive("tau", tau)
    _pair(logratio_chosen, logratio_rejected, "log-ratios", "ipo_loss")
    return ((logratio_chosen - logratio_rejected - 1.0 / (2.0 * tau)) ** 2).mean()


def orpo_loss(
    logp_chosen: Tensor,
    logp_rejected: Tensor,
    length_chosen: Tensor,
    length_rejected: Tensor,
    lam: float,
) -> Tensor:
    """ORPO: mean NLL of the chosen responses (per token) − λ mean log σ(log odds_w − log odds_l).

    Args:
        logp_chosen, logp_rejected: (P,) summed response log-probabilities under the policy (< 0).
        length_chosen, length_rejected: (P,) response token counts (> 0).
        lam: λ > 0, the odds-ratio weight (the paper's 0.1; TRL's ``beta``).
    """
    _positive("lam", lam)
    _pair(logp_chosen, logp_rejected, "log-probabilities", "orpo_loss")
    mean_w = logp_chosen / _lengths(length_chosen, logp_chosen, "length_chosen")
    mean_l = logp_rejected / _lengths(length_rejected, logp_rejected, "length_rejected")
    # log odds = log p − log(1 − p), log(1 − p) = log(−expm1(log p)): exact for p near 1
    log_odds = (mean_w - torch.log(-torch.expm1(mean_w))) - (mean_l - torch.log(-torch.expm1(mean_l)))
    return (-mean_w).mean() - lam * F.logsigmoid(log_odds).mean()


def simpo_loss(
    logp_chosen: Tensor,
    logp_rejected: Tensor,
    length_chosen: Tensor,
    length_rejected: Tensor,
    beta: float,
    *,
    gamma: float = 0.0,
) -> Tensor:
    """SimPO: mean of −log σ(β (logp_w/|y_w| − logp_l/|y_l|) − γ) over (P,) pairs; no reference model.

    Args:
        logp_chosen, logp_rejected: (P,) summed response log-probabilities under the policy.
        length_chosen, length_rejected: (P,) response token counts (> 0).
        beta: the reward scale (the paper uses 2.0-2.5); gamma: the target margin γ >= 0.
    """
    _positive("beta", beta)
    _pair(logp_chosen, logp_rejected, "log-probabilities", "simpo_loss")
    if not (math.isfinite(gamma) and gamma >= 0):
        raise ValueError(f"gamma must be a finite number >= 0, got {gamma}")
    mean_w = logp_chosen / _lengths(length_chosen, logp_chosen, "length_chosen")
    mean_l = logp_rejected / _lengths(length_rejected, logp_rejected, "length_rejected")
    return -F.logsigmoid(beta * (mean_w - mean_l) - gamma).mean()


def _mask_like(scores: Tensor, mask: Tensor | None) -> Tensor:
    if mask is None:
        return torch.ones_like(scores, dtype=torch.bool)
    if mask.shape != scores.shape:
        raise ValueError(f"mask has shape {tuple(mask.shape)}, expected {tuple(scores.shape)}")
    return mask.to(torch.bool)


def dpo_pl_loss(rewards: Tensor, scores: Tensor, mask: Tensor | None = None) -> Tensor:
    """Plackett–Luce listwise DPO (Rafailov et al. 2023, App. A): −Σ_k log softmax over the members not yet
    placed, in score order (ties broken by index), averaged over the N − 1 choices and over lists.

    Args:
        rewards: (B, N) implicit rewards (β Σ_t log-ratio); scores: (B, N) finite quality scores, higher
            is better; mask: (B, N) bool, the valid members (default all).
    """
    m = _mask_like(scores, mask)
    if scores.dim() != 2:
        raise ValueError(f"scores must be (B, N), got shape {tuple(scores.shape)}")
    if not torch.isfinite(scores[m]).all():
        raise ValueError("scores must be finite (no NaN or inf) for every list member")
    s = torch.where(m, scores, -torch.inf)
    order = torch.sort(s, dim=-1, descending=True, stable=True).indices
    r = torch.gather(torch.where(m, rewards, -torch.inf), -1, order)
    # log Σ_{j >= k} exp(r_j): reverse cumulative logsumexp
    tail = torch.logcumsumexp(r.flip(-1), dim=-1).flip(-1)
    n_valid = m.sum(-1)
    pos = torch.arange(r.shape[-1], device=r.device)[None, :]
    take = pos < (n_valid[:, None] - 1)  # the last placed member is a certain choice
    terms = torch.where(take, tail - r, 0.0)
    has = n_valid > 1
    if not bool(has.any()):
        raise ValueError("dpo_pl_loss needs a list with at least two members")
    per_list = terms.sum(-1) / (n_valid - 1).clamp(min=1)
    return per_list[has].mean()
