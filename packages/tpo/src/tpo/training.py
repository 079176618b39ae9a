"""Preference optimisation of a causal LM on preference lists: TPO, its ablations, DPO and DPO-PL.

``train_preference(policy, reference, tokenizer, lists, objective, TrainConfig(...), max_length=...)``
trains ``policy`` in place against the frozen ``reference`` with AdamW and paperkit's warm-up + cosine
schedule. Each optimiser step draws ``batch_size`` lists (successive seeded permutations). TPO scores all
N members of each list in one policy forward and one reference forward; DPO draws pairs from the same
lists (``pair_sampling``) and scores 2 sequences a pair.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import torch
from paperkit.lm import TrainConfig, index_batches, optimizer_and_schedule, sequence_logprobs
from paperkit.progress import track
from paperkit.validation import check_positive
from torch import Tensor

from tpo.data import DEFAULT_STEP_PATTERN, PreferenceList
from tpo.logprobs import ListBatch, check_models, encode_lists, token_logratios
from tpo.losses import (
    Aggregate,
    Label,
    Normalize,
    PairSampling,
    ReferenceWeight,
    StepWeight,
    adaptive_step_weights,
    best_index,
    clamp_step_ids,
    dpo_loss,
    dpo_pl_loss,
    sample_pairs,
    tpo_loss,
    weighted_rewards,
)


@dataclass(frozen=True)
class TPOObjective:
    """TPO's loss options (defaults: the spec's reading of the paper and the official code).

    Attributes:
        beta: β of the implicit reward (spec default 0.1; the official scripts use 0.05-0.5).
        use_asr: Adaptive Step Reward on (False: "TPO w/o ASR", i.e. LiPO-λ).
        use_lambda: LambdaLoss weights Δ on (False: Δ ≡ 1, RankNet over all pairs).
        step_weight: ``"one_plus_cos"`` (official code) or ``"one_minus_cos"``.
        detach_step_embeddings: stop gradients through the step embeddings (official code: False).
        label: ψ, the label scale of the gains (``"rank"`` or ``"minmax"``).
        normalize: divisor of a list's loss (``"pairs"``, ``"lambda"`` or ``"none"``).
        clamp_steps_to_min: the official dataset's clamping of step ids (default False).
        aggregate: ``"sum"`` (r̃ = β Σ_t w ℓ_t, the spec's reading) or ``"step_mean"`` (the official
            ``loss.py``: a w-weighted mean of per-step mean log-ratios).
        reference_weight: the reference member's own step weights: ``"formula"`` (1 + cos(h, h) = 2, as
            the official ``loss.py`` computes them; default) or ``"one"`` (the spec's reading).
        step_pattern: regular expression of a step marker.
    """

    beta: float = 0.1
    use_asr: bool = True
    use_lambda: bool = True
    step_weight: StepWeight = "one_plus_cos"
    detach_step_embeddings: bool = False
    label: Label = "rank"
    normalize: Normalize = "pairs"
    clamp_steps_to_min: bool = False
    aggregate: Aggregate = "sum"
    reference_weight: ReferenceWeight = "formula"
    step_pattern: str = DEFAULT_STEP_PATTERN

    def __post_init__(self) -> None:
        _check_beta(self.beta)
        if self.step_weight not in ("one_plus_cos", "one_minus_cos"):
            raise ValueError(
                f"step_weight must be 'one_plus_cos' or 'one_minus_cos', got {self.step_weight!r}"
            )
        if self.label not in ("rank", "minmax"):
            raise ValueError(f"label must be 'rank' or 'minmax', got {self.label!r}")
        if self.normalize not in ("pairs", "lambda", "none"):
            raise ValueError(f"normalize must be 'pairs', 'lambda' or 'none', got {self.normalize!r}")
        if self.reference_weight not in ("one", "formula"):
            raise ValueError(f"reference_weight must be 'one' or 'formula', got {self.reference_weight!r}")
        if self.aggregate not in ("sum", "step_mean"):
            raise ValueError(f"aggregate must be 'sum' or 'step_mean', got {self.aggregate!r}")

    def loss(self, ell: Tensor, batch: ListBatch, hidden: Tensor | None) -> tuple[Tensor, dict[str, Tensor]]:
        return tpo_loss(
            ell,
            batch.step_ids,
            hidden,
            batch.scores,
            self.beta,
            mask=batch.mask,
            use_asr=self.use_asr,
            use_lambda=self.use_lambda,
            step_weight=self.step_weight,
            detach_step_embeddings=self.detach_step_embeddings,
            label=self.label,
            normalize=self.normalize,
            clamp_steps_to_min=self.clamp_steps_to_min,
            aggregate=self.aggregate,
            reference_weight=self.reference_weight,
        )


@dataclass(frozen=True)
class DPOObjective:
    """DPO on pairs drawn from the lists.

    Attributes:
        beta: β (same as TPO's for a like-for-like comparison).
        pair_sampling: ``"random"`` (one strictly ordered pair a list a step; default),
            ``"best_vs_worst"`` (the official baseline's gold vs. last) or ``"best_vs_each"``.
        avg_logp: average the token log-probabilities instead of summing them (the official
            ``compute_dpo_logprobs``); default False (the DPO paper's sum, as TRL).
    """

    beta: float = 0.1
    pair_sampling: PairSampling = "random"
    avg_logp: bool = False

    def __post_init__(self) -> None:
        _check_beta(self.beta)
        if self.pair_sampling not in ("random", "best_vs_worst", "best_vs_each"):
            raise ValueError(
                "pair_sampling must be 'random', 'best_vs_worst' or 'best_vs_each', "
                f"got {self.pair_sampling!r}"
            )


@dataclass(frozen=True)
class DPOPLObjective:
    """Plackett–Luce listwise DPO over the plain implicit rewards β Σ_t ℓ_t."""

    beta: float = 0.1

    def __post_init__(self) -> None:
        _check_beta(self.beta)


Objective = TPOObjective | DPOObjective | DPOPLObjective


def _check_beta(beta: float) -> None:
    check_positive(beta, "beta")


def check_lists(lists: Sequence[PreferenceList], *, drop_uninformative: bool = False) -> list[PreferenceList]:
    """Validate training lists: non-empty, every list with at least one strictly ordered pair.

    A list of one member or of tied scores only carries no preference; it is an error unless
    ``drop_uninformative`` (then it is dropped with a warning)."""
    if isinstance(lists, PreferenceList) or not isinstance(lists, Sequence):
        raise TypeError("lists must be a sequence of PreferenceList")
    if len(lists) == 0:
        raise ValueError(
            "no preference lists given: need at least one list with two differently scored responses"
        )
    keep = []
    for i, pl in enumerate(lists):
        if not isinstance(pl, PreferenceList):
            raise TypeError(f"lists[{i}] is a {type(pl).__name__}, expected a PreferenceList")
        if pl.n_pairs == 0:
            why = "one response" if len(pl) == 1 else f"only tied scores {list(pl.scores)}"
            if not drop_uninformative:
                raise ValueError(
                    f"list {i} has {why}: it carries no preference; remove it or pass drop_uninformative=True"
                )
            continue
        keep.append(pl)
    if len(keep) < len(lists):
        warnings.warn(
            f"dropped {len(lists) - len(keep)} lists without a preference pair", UserWarning, stacklevel=2
        )
    if not keep:
        raise ValueError("no list has two responses with different scores: nothing to learn from")
    return keep


def _dpo_step_loss(
    policy: torch.nn.Module,
    reference: torch.nn.Module,
    batch: ListBatch,
    objective: DPOObjective,
    generator: torch.Generator,
) -> Tensor:
    pairs = sample_pairs(batch.scores.cpu(), objective.pair_sampling, generator, batch.mask.cpu())
    if len(pairs) == 0:
        raise ValueError("no preference pair in the batch")
    dev = batch.input_ids.device
    li, ci, ri = (pairs[:, k].to(dev) for k in range(3))
    sel = torch.cat([torch.stack([li, ci], 1), torch.stack([li, ri], 1)])  # chosen rows, then rejected
    flat = {
        "input_ids": batch.input_ids[sel[:, 0], sel[:, 1]],
        "attention_mask": batch.attention_mask[sel[:, 0], sel[:, 1]],
        "response_mask": batch.response_mask[sel[:, 0], sel[:, 1]],
    }
    width = int(flat["attention_mask"].sum(-1).max())
    flat = {k: v[:, :width] for k, v in flat.items()}
    pol, _ = sequence_logprobs(policy, flat)
    with torch.no_grad():
        ref, _ = sequence_logprobs(reference, flat)
    logratio = pol - ref
    if objective.avg_logp:
        logratio = logratio / flat["response_mask"].sum(-1).clamp(min=1)
    p = len(pairs)
    return dpo_loss(logratio[:p], logratio[p:], objective.beta)


def preference_loss(
    policy: torch.nn.Module,
    reference: torch.nn.Module,
    batch: ListBatch,
    objective: Objective,
    generator: torch.Generator | None = None,
) -> Tensor:
    """The objective's loss on one batch of lists (differentiable in the policy's parameters)."""
    if isinstance(objective, DPOObjective):
        return _dpo_step_loss(
            policy, reference, batch, objective, generator or torch.Generator().manual_seed(0)
        )
    if isinstance(objective, TPOObjective):
        ell, hidden = token_logratios(policy, reference, batch, hidden=objective.use_asr)
        return objective.loss(ell, batch, hidden)[0]
    if isinstance(objective, DPOPLObjective):
        ell, _ = token_logratios(policy, reference, batch, hidden=False)
        return dpo_pl_loss(objective.beta * ell.sum(-1), batch.scores, batch.mask)
    raise TypeError(
        f"objective must be a TPOObjective, DPOObjective or DPOPLObjective, got {type(objective).__name__}"
    )


def train_preference(
    policy: torch.nn.Module,
    reference: torch.nn.Module,
    tokenizer: Any,
    lists: Sequence[PreferenceList],
    objective: Objective,
    config: TrainConfig,
    *,
    max_length: int,
    device: str = "cpu",
    reference_tokenizer: Any | None = None,
    drop_uninformative: bool = False,
    callback: Callable[[int, torch.nn.Module], None] | None = None,
    callback_every: int = 0,
    progress: bool = False,
) -> list[float]:
    """Train ``policy`` in place on preference lists; the reference stays frozen. Returns the step losses.

    Args:
        policy, reference: causal LMs on ``device`` sharing ``tokenizer`` (the reference is usually a copy
            of the initial policy); ``reference_tokenizer`` is checked against ``tokenizer`` if given.
        lists: the training lists (validated by :func:`check_lists`).
        objective: :class:`TPOObjective`, :class:`DPOObjective` or :class:`DPOPLObjective`.
        config: paperkit's TrainConfig (steps, lists a step, lr, warm-up + cosine, clipping, seed).
        max_length: the longest sequence (prompt + response + 2); longer responses are an error.
        callback: called as ``callback(step, policy)`` after every ``callback_every``-th step (and
            before the first, with step 0) for learning curves.
    """
    if not isinstance(config, TrainConfig):
        raise TypeError(f"config must be a paperkit.lm.TrainConfig, got {type(config).__name__}")
    if not isinstance(objective, (TPOObjective, DPOObjective, DPOPLObjective)):
        raise TypeError(
            "objective must be a TPOObjective, DPOObjective or DPOPLObjective, "
            f"got {type(objective).__name__}"
        )
    check_models(policy, reference, tokenizer, reference_tokenizer, max_length=max_length)
    lists = check_lists(lists, drop_uninformative=drop_uninformative)
    pattern = objective.step_pattern if isinstance(objective, TPOObjective) else DEFAULT_STEP_PATTERN
    data = encode_lists(tokenizer, lists, max_length=max_length, device=device, step_pattern=pattern)
    reference.eval()  # frozen: it runs under no_grad and is not in the optimiser
    optimizer, scheduler = optimizer_and_schedule([p for p in policy.parameters() if p.requires_grad], config)
    order_gen = torch.Generator().manual_seed(config.seed)
    pair_gen = torch.Generator().manual_seed(config.seed + 1)
    batches = index_batches(len(lists), config.batch_size, order_gen)
    was_training = policy.training
    policy.train()
    losses: list[float] = []
    try:
        if callback is not None and callback_every > 0:
            callback(0, policy)
        for step in track(range(config.steps), desc="po", enabled=None if progress else False):
            idx = next(batches)
            batch = data.select(idx.to(data.input_ids.device))
            loss = preference_loss(policy, reference, batch, objective, pair_gen)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), config.grad_clip)
            optimizer.step()
            scheduler.step()
            losses.append(float(loss.detach()))
            if callback is not None and callback_every > 0 and (step + 1) % callback_every == 0:
                policy.eval()
                callback(step + 1, policy)
                policy.train()
    finally:
        policy.train(was_training)
        optimizer.zero_grad(set_to_none=True)
    return losses


@torch.no_grad()
def implicit_rewards(
    policy: torch.nn.Module,
    reference: torch.nn.Module,
    batch: ListBatch,
    *,
    beta: float = 0.1,
    asr: TPOObjective | None = None,
    chunk: int = 64,
) -> dict[str, Tensor]:
    """Implicit rewards of every list member (no gradient): ``{"plain": β Σ_t ℓ_t (B, N)}`` and, when
    ``asr`` is given, ``"asr"``: its ASR-weighted reward r̃ (reference member = best-scored)."""
    _check_beta(beta)
    was = policy.training
    policy.eval()
    plain, weighted = [], []
    try:
        for start in range(0, batch.shape[0], chunk):
            sub = batch.select(
                torch.arange(start, min(start + chunk, batch.shape[0]), device=batch.input_ids.device)
            )
            ell, hidden = token_logratios(policy, reference, sub, hidden=asr is not None)
            plain.append(beta * ell.sum(-1))
            if asr is not None:
                assert hidden is not None
                ids = clamp_step_ids(sub.step_ids, sub.mask) if asr.clamp_steps_to_min else sub.step_ids
                w = adaptive_step_weights(
                    hidden,
                    ids,
                    best_index(sub.scores, sub.mask),
                    mode=asr.step_weight,
                    reference_weight=asr.reference_weight,
                )
                weighted.append(weighted_rewards(ell, ids, w, beta, asr.aggregate))
    finally:
        policy.train(was)
    out = {"plain": torch.cat(plain)}
    if asr is not None:
        out["asr"] = torch.cat(weighted)
    return out
