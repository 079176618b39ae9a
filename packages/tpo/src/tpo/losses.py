r"""TPO's objective and its baselines as pure torch functions of per-token log-ratios.

Shapes: B lists of N members (padded lists use ``mask``), T token positions, H hidden units, K steps.

- ``ell``: (B, N, T) token log-ratios ℓ_t(y) = log π_θ(y_t | x, y_<t) − log π_ref(y_t | x, y_<t), zero
  outside each response (prompt and padding).
- ``step_ids``: (B, N, T) long, the 1-based step of each token (0 = in no step: prompt, padding, text
  before the first step marker).
- ``hidden``: (B, N, T, H) the policy's last-layer hidden states.
- ``scores``: (B, N) the list members' quality scores v (higher is better).

Preference-list ranking (PLR, the LambdaLoss / LiPO-λ form the paper builds on)::

    L = − Σ_{i,j: v_i > v_j} Δ_ij log σ(r_i − r_j) / Z,
    Δ_ij = |G_i − G_j| · |1/D(τ_i) − 1/D(τ_j)|,  G = 2^ψ(v) − 1,  D(τ) = log2(1 + τ),

τ_i the 1-based rank of member i under the current rewards r (Δ carries no gradient), ψ a bounded label
(``label="rank"``: the number of members scored strictly lower, so the best of N distinct scores gets
N − 1; ``label="minmax"``: (v − v_min)/(v_max − v_min)), and Z the number of pairs with v_i > v_j
(``normalize="pairs"``), Σ Δ over them (``"lambda"``), or 1 (``"none"``).

Adaptive Step Reward (ASR): with y_ref the best-scored member and h_j^k the mean last-layer hidden state
of step k of y_j, the step weight is w_j^k = 1 + cos(h_j^k, h_ref^k) (``step_weight="one_plus_cos"``, the
official code) or 1 − cos (``"one_minus_cos"``); the reference's own steps get the formula's value with
cos = 1 (2 for 1 + cos, as the official ``loss.py`` computes it; ``reference_weight="one"`` is the spec's
reading, w = 1); steps that the reference lacks and tokens in no step get w = 1. The list member's reward is
r̃_j = β Σ_t w_j^{k(t)} ℓ_t(y_j).
"""

from __future__ import annotations

import math
import warnings
from typing import Literal

import torch
import torch.nn.functional as F

# DPO and its list form live in paperkit.lm (shared with other papers); re-exported here unchanged.
from paperkit.lm.preference import dpo_loss as dpo_loss
from paperkit.lm.preference import dpo_pl_loss as dpo_pl_loss
from torch import Tensor

Label = Literal["rank", "minmax"]
Normalize = Literal["pairs", "lambda", "none"]
StepWeight = Literal["one_plus_cos", "one_minus_cos"]
Aggregate = Literal["sum", "step_mean"]
ReferenceWeight = Literal["one", "formula"]
PairSampling = Literal["random", "best_vs_worst", "best_vs_each"]


def _mask_like(scores: Tensor, mask: Tensor | None) -> Tensor:
    if mask is None:
        return torch.ones_like(scores, dtype=torch.bool)
    if mask.shape != scores.shape:
        raise ValueError(f"mask has shape {tuple(mask.shape)}, expected {tuple(scores.shape)}")
    return mask.to(torch.bool)


def _check_scores(scores: Tensor, mask: Tensor) -> None:
    if scores.dim() != 2:
        raise ValueError(f"scores must be (B, N), got shape {tuple(scores.shape)}")
    if not torch.isfinite(scores[mask]).all():
        raise ValueError("scores must be finite (no NaN or inf) for every list member")


def preference_pairs(scores: Tensor, mask: Tensor | None = None) -> Tensor:
    """(B, N, N) bool: True where member i is strictly preferred to member j (v_i > v_j, both valid)."""
    m = _mask_like(scores, mask)
    _check_scores(scores, m)
    return (scores[:, :, None] > scores[:, None, :]) & m[:, :, None] & m[:, None, :]


def relevance_labels(scores: Tensor, mask: Tensor | None = None, label: Label = "rank") -> Tensor:
    """ψ(v): (B, N) float labels on a bounded scale (raw scores are never exponentiated).

    ``"rank"``: number of valid members with a strictly lower score (ties share a label; best = N − 1
    for distinct scores). ``"minmax"``: (v − min)/(max − min) over the valid members (0 if all tie).
    """
    m = _mask_like(scores, mask)
    _check_scores(scores, m)
    if label == "rank":
        lower = (scores[:, :, None] > scores[:, None, :]) & m[:, None, :]
        return lower.sum(-1).to(scores.dtype) * m
    if label == "minmax":
        big = torch.finfo(scores.dtype).max
        lo = torch.where(m, scores, big).min(-1, keepdim=True).values
        hi = torch.where(m, scores, -big).max(-1, keepdim=True).values
        span = hi - lo
        out = torch.where(span > 0, (scores - lo) / torch.where(span > 0, span, 1.0), 0.0)
        return out * m
    raise ValueError(f"unknown label {label!r}; expected 'rank' or 'minmax'")


def predicted_ranks(rewards: Tensor, mask: Tensor | None = None) -> Tensor:
    """τ: (B, N) long 1-based rank of each valid member under ``rewards`` sorted descending (stable:
    equal rewards keep index order; invalid members rank after all valid ones)."""
    m = _mask_like(rewards, mask)
    r = torch.where(m, rewards.detach(), -torch.inf)
    order = torch.sort(r, dim=-1, descending=True, stable=True).indices
    ranks = torch.empty_like(order)
    pos = torch.arange(1, r.shape[-1] + 1, device=r.device).expand_as(order)
    ranks.scatter_(-1, order, pos)
    return ranks


def lambda_weights(
    scores: Tensor, rewards: Tensor, mask: Tensor | None = None, label: Label = "rank"
) -> Tensor:
    """Δ: (B, N, N) LambdaLoss weights |G_i − G_j|·|1/D(τ_i) − 1/D(τ_j)| on pairs v_i > v_j (else 0).

    Computed without gradient (Δ is a constant of the loss)."""
    with torch.no_grad():
        m = _mask_like(scores, mask)
        psi = relevance_labels(scores, m, label)
        gain = torch.exp2(psi) - 1.0
        tau = predicted_ranks(rewards, m).to(scores.dtype)
        inv_disc = 1.0 / torch.log2(1.0 + tau)
        delta = (gain[:, :, None] - gain[:, None, :]).abs() * (
            inv_disc[:, :, None] - inv_disc[:, None, :]
        ).abs()
        return (delta * preference_pairs(scores, m)).detach()


def plr_loss(
    rewards: Tensor,
    scores: Tensor,
    mask: Tensor | None = None,
    *,
    use_lambda: bool = True,
    label: Label = "rank",
    normalize: Normalize = "pairs",
) -> Tensor:
    """Preference-list ranking loss over (B, N) rewards; the mean over lists that have a preference pair.

    ``use_lambda=False`` sets Δ ≡ 1 (RankNet / Bradley–Terry over all pairs). Lists without any pair
    (all scores tied, or one member) contribute nothing; if no list has a pair the loss is 0 (still
    attached to the graph) and a warning is issued.
    """
    m = _mask_like(scores, mask)
    if rewards.shape != scores.shape:
        raise ValueError(f"rewards {tuple(rewards.shape)} and scores {tuple(scores.shape)} differ in shape")
    pairs = preference_pairs(scores, m)
    weight = lambda_weights(scores, rewards, m, label) if use_lambda else pairs.to(rewards.dtype)
    diff = rewards[:, :, None] - rewards[:, None, :]
    per_pair = -F.logsigmoid(diff) * weight
    n_pairs = pairs.sum((1, 2))
    if normalize == "pairs":
        z = n_pairs.to(rewards.dtype)
    elif normalize == "lambda":
        z = weight.sum((1, 2))
    elif normalize == "none":
        z = torch.ones_like(n_pairs, dtype=rewards.dtype)
    else:
        raise ValueError(f"unknown normalize {normalize!r}; expected 'pairs', 'lambda' or 'none'")
    has = (n_pairs > 0) & (z > 0)
    per_list = per_pair.sum((1, 2)) / torch.where(has, z, 1.0)
    if not bool(has.any()):
        warnings.warn(
            "no list in the batch has two members with different scores; the ranking loss is 0",
            RuntimeWarning,
            stacklevel=2,
        )
        return (rewards * 0.0).sum()
    return per_list[has].mean()


def step_embeddings(hidden: Tensor, step_ids: Tensor, n_steps: int | None = None) -> tuple[Tensor, Tensor]:
    """Mean hidden state of every step: ``(emb (B, N, K, H), present (B, N, K) bool)``.

    K = ``n_steps`` or the largest step id; tokens with step id 0 belong to no step."""
    if hidden.shape[:3] != step_ids.shape:
        raise ValueError(
            f"hidden {tuple(hidden.shape)} and step_ids {tuple(step_ids.shape)} disagree on (B, N, T)"
        )
    k = int(step_ids.max().item()) if n_steps is None else n_steps
    k = max(k, 1)
    onehot = F.one_hot(step_ids.clamp(0, k), k + 1)[..., 1:].to(hidden.dtype)  # (B, N, T, K)
    sums = torch.einsum("bntk,bnth->bnkh", onehot, hidden)
    counts = onehot.sum(2)
    return sums / counts.clamp(min=1.0)[..., None], counts > 0


def clamp_step_ids(step_ids: Tensor, mask: Tensor | None = None) -> Tensor:
    """The official dataset's variant: clamp each list's step ids to the smallest step count among its
    members (extra steps fall into the last shared bucket)."""
    m = _mask_like(step_ids[..., 0].to(torch.float32), mask)
    n_steps = step_ids.amax(-1)  # (B, N)
    big = torch.iinfo(n_steps.dtype).max
    k_min = torch.where(m, n_steps, big).amin(-1).clamp(min=1)  # (B,)
    return torch.minimum(step_ids, k_min[:, None, None])


def adaptive_step_weights(
    hidden: Tensor,
    step_ids: Tensor,
    ref_index: Tensor,
    *,
    mode: StepWeight = "one_plus_cos",
    detach: bool = False,
    reference_weight: ReferenceWeight = "formula",
) -> Tensor:
    """w: (B, N, K) ASR weights of every member's steps against the reference member ``ref_index`` (B,).

    w_j^k = 1 ± cos(h_j^k, h_ref^k) where both have a step k; 1 elsewhere. The reference's own steps get
    the formula with cos = 1, i.e. 2 for ``one_plus_cos`` (``reference_weight="formula"``, the default:
    what the official ``loss.py`` computes, so a step identical to the reference's weighs the same in
    both), or w = 1 (``"one"``, the spec's reading)."""
    if mode not in ("one_plus_cos", "one_minus_cos"):
        raise ValueError(f"unknown step_weight {mode!r}; expected 'one_plus_cos' or 'one_minus_cos'")
    h = hidden.detach() if detach else hidden
    emb, present = step_embeddings(h, step_ids)
    b_idx = torch.arange(emb.shape[0], device=emb.device)
    ref_emb, ref_present = emb[b_idx, ref_index], present[b_idx, ref_index]  # (B, K, H), (B, K)
    cos = F.cosine_similarity(emb, ref_emb[:, None], dim=-1, eps=1e-8)
    w = 1.0 + cos if mode == "one_plus_cos" else 1.0 - cos
    if reference_weight not in ("one", "formula"):
        raise ValueError(f"unknown reference_weight {reference_weight!r}; expected 'one' or 'formula'")
    valid = present & ref_present[:, None, :]
    is_ref = torch.arange(emb.shape[1], device=emb.device)[None, :] == ref_index[:, None]  # (B, N)
    if reference_weight == "one":
        valid = valid & ~is_ref[:, :, None]
    else:  # the reference compared with itself: cos = 1 exactly
        self_w = 2.0 if mode == "one_plus_cos" else 0.0
        w = torch.where(is_ref[:, :, None] & present, torch.full_like(w, self_w), w)
    return torch.where(valid, w, torch.ones_like(w))


def weighted_rewards(
    ell: Tensor, step_ids: Tensor, weights: Tensor | None, beta: float, aggregate: Aggregate = "sum"
) -> Tensor:
    """r̃: (B, N) implicit rewards from token log-ratios and step weights.

    ``aggregate="sum"`` (the spec's reading): β Σ_t w^{k(t)} ℓ_t, tokens in no step weighted 1;
    ``weights=None`` gives the plain DPO reward β Σ_t ℓ_t. ``"step_mean"`` (the official ``loss.py``):
    β Σ_k w^k m^k / Σ_k w^k with m^k the mean ℓ over step k's tokens (steps only; ``weights=None``: w ≡ 1).
    """
    if aggregate == "sum":
        if weights is None:
            return beta * ell.sum(-1)
        w0 = torch.cat([torch.ones_like(weights[..., :1]), weights], dim=-1)  # step 0 -> weight 1
        w_tok = torch.gather(w0, -1, step_ids.clamp(0, weights.shape[-1]))
        return beta * (w_tok * ell).sum(-1)
    if aggregate == "step_mean":
        k = weights.shape[-1] if weights is not None else max(int(step_ids.max().item()), 1)
        onehot = F.one_hot(step_ids.clamp(0, k), k + 1)[..., 1:].to(ell.dtype)  # (B, N, T, K)
        counts = onehot.sum(2)
        means = torch.einsum("bntk,bnt->bnk", onehot, ell) / counts.clamp(min=1.0)
        w = torch.ones_like(means) if weights is None else weights
        w = w * (counts > 0)
        return beta * (w * means).sum(-1) / w.sum(-1).clamp(min=1e-12)
    raise ValueError(f"unknown aggregate {aggregate!r}; expected 'sum' or 'step_mean'")


def best_index(scores: Tensor, mask: Tensor | None = None) -> Tensor:
    """(B,) index of each list's best-scored valid member (the first among equal best)."""
    m = _mask_like(scores, mask)
    s = torch.where(m, scores, -torch.inf)
    n = scores.shape[-1]
    # argmax returns the first maximal index on every backend when made explicit like this
    first = torch.where(s == s.max(-1, keepdim=True).values, torch.arange(n, device=s.device), n)
    return first.min(-1).values


def tpo_loss(
    ell: Tensor,
    step_ids: Tensor,
    hidden: Tensor | None,
    scores: Tensor,
    beta: float,
    *,
    mask: Tensor | None = None,
    use_asr: bool = True,
    use_lambda: bool = True,
    step_weight: StepWeight = "one_plus_cos",
    detach_step_embeddings: bool = False,
    label: Label = "rank",
    normalize: Normalize = "pairs",
    clamp_steps_to_min: bool = False,
    aggregate: Aggregate = "sum",
    reference_weight: ReferenceWeight = "formula",
) -> tuple[Tensor, dict[str, Tensor]]:
    """The TPO loss (PLR over ASR-adjusted implicit rewards). Returns ``(loss, extras)`` where extras holds
    the detached ``rewards`` (B, N) and, with ASR, the step ``weights`` (B, N, K).

    ``use_asr=False`` is TPO w/o ASR (LiPO-λ); ``use_lambda=False`` is TPO w/o λ-weights;
    ``aggregate`` chooses how step weights combine token log-ratios (:func:`weighted_rewards`)."""
    if beta <= 0 or not math.isfinite(beta):
        raise ValueError(f"beta must be a positive finite number, got {beta}")
    if ell.dim() != 3 or ell.shape[:2] != scores.shape:
        raise ValueError(
            f"ell must be (B, N, T) matching scores (B, N); got {tuple(ell.shape)}, {tuple(scores.shape)}"
        )
    m = _mask_like(scores, mask)
    extras: dict[str, Tensor] = {}
    if use_asr:
        if hidden is None:
            raise ValueError("use_asr=True needs the policy's hidden states (hidden=None given)")
        ids = clamp_step_ids(step_ids, m) if clamp_steps_to_min else step_ids
        ref = best_index(scores, m)
        w = adaptive_step_weights(
            hidden,
            ids,
            ref,
            mode=step_weight,
            detach=detach_step_embeddings,
            reference_weight=reference_weight,
        )
        rewards = weighted_rewards(ell, ids, w, beta, aggregate)
        extras["weights"] = w.detach()
    else:
        rewards = weighted_rewards(ell, step_ids, None, beta, aggregate)
    loss = plr_loss(rewards, scores, m, use_lambda=use_lambda, label=label, normalize=normalize)
    extras["rewards"] = rewards.detach()
    return loss, extras


def sample_pairs(
    scores: Tensor, mode: PairSampling, generator: torch.Generator | None = None, mask: Tensor | None = None
) -> Tensor:
    """DPO pairs from lists: (P, 3) long CPU rows ``(list, chosen, rejected)`` with v_chosen > v_rejected.

    ``"best_vs_worst"``: one pair a list (best vs lowest-scored, as the official DPO baseline pairs gold
    with the Step-DPO rejected answer); ``"random"``: one uniformly drawn strictly ordered pair a list
    (drawn with ``generator``, a CPU ``torch.Generator``);
    ``"best_vs_each"``: the best against every strictly worse member. Lists without a pair are skipped."""
    m = _mask_like(scores, mask)
    pairs = preference_pairs(scores, m)
    rows: list[Tensor] = []
    best = best_index(scores, m)
    for b in range(scores.shape[0]):
        if not bool(pairs[b].any()):
            continue
        if mode == "best_vs_worst":
            s = torch.where(m[b], scores[b], torch.inf)
            worst = int(torch.argmin(s))
            rows.append(torch.tensor([[b, int(best[b]), worst]]))
        elif mode == "best_vs_each":
            worse = torch.nonzero(pairs[b, best[b]]).flatten()
            rows.append(
                torch.stack([torch.full_like(worse, b), torch.full_like(worse, int(best[b])), worse], 1)
            )
        elif mode == "random":
            cand = torch.nonzero(pairs[b])  # (n_pairs, 2)
            pick = int(torch.randint(len(cand), (1,), generator=generator))
            i, j = cand[pick].tolist()
            rows.append(torch.tensor([[b, i, j]]))
        else:
            raise ValueError(
                f"unknown pair_sampling {mode!r}; expected 'random', 'best_vs_worst' or 'best_vs_each'"
            )
    if not rows:
        return torch.zeros((0, 3), dtype=torch.long)
    return torch.cat([r.cpu() for r in rows]).long()
