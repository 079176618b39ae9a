r"""The alignment stage (paper: supervised fine-tuning, then preference optimisation with DPO), on
bilingual QA in an instruction format the model never saw in pre-training.

- Data: the world's facts are split at random into an *align* part and a *held-out* part
  (:func:`split_facts`). Each align fact gives a question probe (``data.qa_probes(style="question")``)
  in every language that states it (A for groups A and AB, B for AB and B); held-out facts are only
  ever evaluated, so alignment is judged on knowledge it did not see in the alignment data.
- SFT: mean next-token cross-entropy over the response tokens (the answer and the eos) of
  ``[bos] + question + answer + [eos]`` (``paperkit.lm.encode_prompt_response``).
- DPO (Rafailov et al. 2023): pairs (question, chosen = the true answer, rejected = a wrong candidate of
  the relation, drawn uniformly); with ``r(y) = log pi(y|x) - log pi_ref(y|x)`` summed over the
  response tokens (``paperkit.lm.sequence_logprobs``),
  ``L = mean -log sigma(beta (r(y_w) - r(y_l)))`` (``paperkit.lm.dpo_loss``); the reference is the SFT
  model, frozen. At ``pi = pi_ref`` the loss is ``log 2``.
- Budgets (:func:`align_model`): ``"sft_dpo"`` = SFT for ``steps`` then DPO for ``steps``; ``"sft"`` = SFT for
  ``2 steps`` (the same number of updates, so DPO is not compared with a shorter run).
Optimiser: Adam (``paperkit.optim.Adam``) at a constant ``lr``, global-norm clipping at 1, minibatches
from successive random permutations seeded by ``seed``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from paperkit.lm import dpo_loss, encode_prompt_response, index_batches, sequence_logprobs
from paperkit.validation import check_choice, check_int, check_number, check_positive, check_seed

from allam.data import Fact, Probe, World, qa_probes
from allam.train import adam_steps

__all__ = [
    "ALIGN_METHODS",
    "AlignConfig",
    "Preference",
    "align_model",
    "align_probes",
    "dpo",
    "dpo_value",
    "preferences",
    "response_logprobs",
    "sft",
    "split_facts",
]

ALIGN_METHODS: tuple[str, ...] = ("sft", "sft_dpo")


@dataclass(frozen=True)
class AlignConfig:
    """``steps`` updates per stage of ``batch_size`` examples at constant ``lr``; DPO's ``beta`` (spec:
    0.1); ``align_frac`` of the facts are alignment data, the rest held out; rows of at most
    ``max_length`` tokens. Defaults are ours (the paper's alignment recipe was not retrieved)."""

    steps: int = 40
    lr: float = 1e-3
    beta: float = 0.1
    batch_size: int = 16
    align_frac: float = 0.5
    max_length: int = 128

    def __post_init__(self) -> None:
        check_int(self.steps, "steps", low=1)
        check_positive(self.lr, "lr")
        check_positive(self.beta, "beta")
        check_int(self.batch_size, "batch_size", low=1)
        check_number(self.align_frac, "align_frac", low=0.0, high=1.0, low_open=True, high_open=True)
        check_int(self.max_length, "max_length", low=4)


@dataclass(frozen=True)
class Preference:
    """One DPO pair: ``prompt``, the ``chosen`` and the ``rejected`` response (different strings)."""

    prompt: str
    chosen: str
    rejected: str

    def __post_init__(self) -> None:
        for name in ("prompt", "chosen", "rejected"):
            if not isinstance(getattr(self, name), str):
                raise TypeError(f"{name} must be a str, got {type(getattr(self, name)).__name__}")
        if self.chosen == self.rejected:
            raise ValueError(f"chosen and rejected are the same response {self.chosen!r}")


def split_facts(world: World, align_frac: float, *, seed: int) -> tuple[tuple[Fact, ...], tuple[Fact, ...]]:
    """``(align, held_out)``: a random ``align_frac`` of all facts (at least one each side)."""
    if not isinstance(world, World):
        raise TypeError(f"world must be an allam.data.World, got {type(world).__name__}")
    check_number(align_frac, "align_frac", low=0.0, high=1.0, low_open=True, high_open=True)
    rng = np.random.default_rng(check_seed(seed))
    n = len(world.facts)
    k = min(max(1, round(align_frac * n)), n - 1)
    chosen = set(rng.permutation(n)[:k].tolist())
    align_ = tuple(f for i, f in enumerate(world.facts) if i in chosen)
    held = tuple(f for i, f in enumerate(world.facts) if i not in chosen)
    return align_, held


def align_probes(facts: Sequence[Fact], world: World, lang: str | None = None) -> list[Probe]:
    """Question probes of ``facts`` in each language that states them (or only in ``lang``)."""
    out: list[Probe] = []
    for lg, groups in (("A", ("A", "AB")), ("B", ("AB", "B"))):
        if lang is None or lang == lg:
            out += qa_probes([f for f in facts if f.group in groups], lg, world, style="question")
    return out


def preferences(probes: Sequence[Probe], *, seed: int) -> list[Preference]:
    """One pair a probe: the true answer chosen, a wrong candidate (uniform) rejected."""
    rng = np.random.default_rng(check_seed(seed))
    out = []
    for p in probes:
        wrong = [c for c in p.candidates if c != p.answer]
        if not wrong:
            raise ValueError(f"probe {p.prompt!r} has no wrong candidate to reject")
        out.append(Preference(p.prompt, p.answer, wrong[int(rng.integers(len(wrong)))]))
    return out


def response_logprobs(
    model: Any,
    tokenizer: Any,
    prompts: Sequence[str],
    responses: Sequence[str],
    *,
    max_length: int = 128,
    device: str = "cpu",
) -> tuple[torch.Tensor, torch.Tensor]:
    """``(logp, n_tokens)``: (B,) summed log-probabilities of ``response + eos`` after ``[bos] + prompt``
    (differentiable) and the number of scored tokens."""  # fmt: skip
    batch = encode_prompt_response(tokenizer, prompts, responses, max_length=max_length, device=device)
    total, _ = sequence_logprobs(model, batch)
    return total, batch["response_mask"].sum(-1)


def _train(
    model: Any,
    n: int,
    loss_of: Callable[[torch.Tensor], torch.Tensor],
    *,
    steps: int,
    lr: float,
    batch_size: int,
    seed: int,
) -> list[float]:
    """``steps`` Adam updates of ``loss_of(indices)`` on minibatches of ``range(n)``; the losses."""
    check_int(steps, "steps", low=1)
    check_positive(lr, "lr")
    check_int(batch_size, "batch_size", low=1)
    batches = index_batches(n, min(batch_size, n), torch.Generator().manual_seed(check_seed(seed)))
    return adam_steps(model, lambda step: loss_of(next(batches)), steps=steps, lr_at=lambda step: lr)


def sft(
    model: Any,
    tokenizer: Any,
    probes: Sequence[Probe],
    *,
    steps: int,
    lr: float,
    batch_size: int = 16,
    seed: int = 0,
    max_length: int = 128,
    device: str = "cpu",
) -> list[float]:
    """Supervised fine-tuning in place on (prompt, true answer) of ``probes``; each step's loss (nats per
    response token)."""  # fmt: skip
    if not probes or any(not isinstance(p, Probe) for p in probes):
        raise ValueError("probes must be a non-empty sequence of allam.data.Probe")
    prompts, answers = [p.prompt for p in probes], [p.answer for p in probes]

    def loss_of(idx: torch.Tensor) -> torch.Tensor:
        i = idx.tolist()
        logp, n = response_logprobs(model, tokenizer, [prompts[k] for k in i], [answers[k] for k in i],
                                    max_length=max_length, device=device)  # fmt: skip
        return -logp.sum() / n.sum()

    return _train(model, len(probes), loss_of, steps=steps, lr=lr, batch_size=batch_size, seed=seed)


def _check_prefs(prefs: Sequence[Preference]) -> None:
    if not prefs or any(not isinstance(p, Preference) for p in prefs):
        raise ValueError("prefs must be a non-empty sequence of allam.align.Preference")


@torch.no_grad()
def _ref_logps(
    ref: Any, tokenizer: Any, prefs: Sequence[Preference], max_length: int, device: str
) -> tuple[torch.Tensor, torch.Tensor]:
    ref.eval()
    prompts = [p.prompt for p in prefs]
    w, _ = response_logprobs(ref, tokenizer, prompts, [p.chosen for p in prefs], max_length=max_length,
                             device=device)  # fmt: skip
    lo, _ = response_logprobs(ref, tokenizer, prompts, [p.rejected for p in prefs], max_length=max_length,
                              device=device)  # fmt: skip
    return w, lo


def _dpo_batch(model: Any, tokenizer: Any, prefs: Sequence[Preference], ref_w: torch.Tensor,
               ref_l: torch.Tensor, beta: float, max_length: int, device: str) -> torch.Tensor:  # fmt: skip
    prompts = [p.prompt for p in prefs]
    w, _ = response_logprobs(model, tokenizer, prompts, [p.chosen for p in prefs], max_length=max_length,
                             device=device)  # fmt: skip
    lo, _ = response_logprobs(model, tokenizer, prompts, [p.rejected for p in prefs], max_length=max_length,
                              device=device)  # fmt: skip
    return dpo_loss(w - ref_w, lo - ref_l, beta)


@torch.no_grad()
def dpo_value(
    model: Any,
    ref: Any,
    tokenizer: Any,
    prefs: Sequence[Preference],
    *,
    beta: float,
    max_length: int = 128,
    device: str = "cpu",
) -> float:
    """The DPO loss of ``model`` against ``ref`` on all of ``prefs`` (module docstring)."""  # fmt: skip
    _check_prefs(prefs)
    check_positive(beta, "beta")
    model.eval()
    ref_w, ref_l = _ref_logps(ref, tokenizer, prefs, max_length, device)
    return float(_dpo_batch(model, tokenizer, prefs, ref_w, ref_l, beta, max_length, device))


def dpo(
    model: Any,
    ref: Any,
    tokenizer: Any,
    prefs: Sequence[Preference],
    *,
    beta: float,
    steps: int,
    lr: float,
    batch_size: int = 16,
    seed: int = 0,
    max_length: int = 128,
    device: str = "cpu",
) -> list[float]:
    """DPO in place on ``model`` against the frozen ``ref``; each step's loss (the first is ``log 2``
    when ``model`` equals ``ref``)."""  # fmt: skip
    _check_prefs(prefs)
    check_positive(beta, "beta")
    ref_w, ref_l = _ref_logps(ref, tokenizer, prefs, max_length, device)

    def loss_of(idx: torch.Tensor) -> torch.Tensor:
        i = idx.tolist()
        sub = [prefs[k] for k in i]
        return _dpo_batch(model, tokenizer, sub, ref_w[idx.to(ref_w.device)], ref_l[idx.to(ref_l.device)],
                          beta, max_length, device)  # fmt: skip

    return _train(model, len(prefs), loss_of, steps=steps, lr=lr, batch_size=batch_size, seed=seed)


def align_model(
    model: Any,
    tokenizer: Any,
    world: World,
    facts: Sequence[Fact],
    config: AlignConfig,
    *,
    method: str,
    seed: int,
    device: str = "cpu",
) -> tuple[Any, dict[str, list[float]]]:
    """Align a copy of ``model`` on the question probes of ``facts`` with ``method`` (``"sft"`` or
    ``"sft_dpo"``, module docstring); returns (the aligned model, {stage: losses})."""  # fmt: skip
    check_choice(method, "method", ALIGN_METHODS)
    if not isinstance(config, AlignConfig):
        raise TypeError(f"config must be an AlignConfig, got {type(config).__name__}")
    seed = check_seed(seed)
    probes = align_probes(facts, world)
    if not probes:
        raise ValueError("facts give no question probe: give at least one fact")
    m, c = copy.deepcopy(model), config
    sft_steps = 2 * c.steps if method == "sft" else c.steps  # equal updates for both methods
    losses = {"sft": sft(m, tokenizer, probes, steps=sft_steps, lr=c.lr, batch_size=c.batch_size, seed=seed,
                         max_length=c.max_length, device=device)}  # fmt: skip
    if method == "sft":
        return m, losses
    ref = copy.deepcopy(m)
    for p in ref.parameters():
        p.requires_grad_(False)
    prefs = preferences(probes, seed=seed + 1)
    losses["dpo"] = dpo(m, ref, tokenizer, prefs, beta=c.beta, steps=c.steps, lr=c.lr, seed=seed,
                        batch_size=c.batch_size, max_length=c.max_length, device=device)  # fmt: skip
    return m, losses
