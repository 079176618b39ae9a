"""Preference lists as tensors, and the per-token log-ratios and hidden states TPO's loss consumes.

Built on :mod:`paperkit.lm`: every list member is encoded with
:func:`paperkit.lm.encode_prompt_response` (``[bos] + prompt + response + [eos]``, right-padded), and the
reference model's log-probabilities come from :func:`paperkit.lm.sequence_logprobs`. The policy's forward
also returns its last-layer hidden states (ASR needs them), so it is done here in one pass with the same
log-probability convention (:func:`policy_logprobs`; the tests check it against ``sequence_logprobs``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch
from paperkit.lm import encode_prompt_response, sequence_logprobs
from torch import Tensor

from tpo.data import DEFAULT_STEP_PATTERN, PreferenceList, char_step_ids


@dataclass(frozen=True)
class ListBatch:
    """B preference lists of up to N members as tensors (members of shorter lists are padding).

    Attributes:
        input_ids, attention_mask: (B, N, L) int64, ``[bos] + prompt + response + [eos]`` right-padded.
        response_mask: (B, N, L) bool, True on the response tokens and the final eos.
        step_ids: (B, N, L) int64, the 1-based step of each response token (0 elsewhere).
        scores: (B, N) float32 scores (0 on padding members).
        mask: (B, N) bool, True on real list members.
    """

    input_ids: Tensor
    attention_mask: Tensor
    response_mask: Tensor
    step_ids: Tensor
    scores: Tensor
    mask: Tensor

    @property
    def shape(self) -> tuple[int, int, int]:
        b, n, l_ = self.input_ids.shape
        return b, n, l_

    def flat(self) -> dict[str, Tensor]:
        """The (B·N, L) batch :func:`paperkit.lm.sequence_logprobs` takes."""
        b, n, l_ = self.shape
        return {
            "input_ids": self.input_ids.reshape(b * n, l_),
            "attention_mask": self.attention_mask.reshape(b * n, l_),
            "response_mask": self.response_mask.reshape(b * n, l_),
        }

    def select(self, idx: Tensor) -> ListBatch:
        """The lists at ``idx`` (a (B',) long tensor), trimmed to their longest row."""
        am = self.attention_mask[idx]
        width = int(am.sum(-1).max()) if am.numel() else 1
        return ListBatch(
            self.input_ids[idx, :, :width],
            am[:, :, :width],
            self.response_mask[idx, :, :width],
            self.step_ids[idx, :, :width],
            self.scores[idx],
            self.mask[idx],
        )

    def to(self, device: str | torch.device) -> ListBatch:
        return ListBatch(*(t.to(device) for t in self.__dict__.values()))


def response_step_ids(
    tokenizer: Any, responses: Sequence[str], pattern: str = DEFAULT_STEP_PATTERN
) -> list[list[int]]:
    """For each response, the step id of each of its tokens followed by the final eos's (the last step).

    A token belongs to the step containing its first character (tokens come from the tokenizer's offset
    mapping, so BPE tokens spanning a step boundary go to the step where they start)."""
    if not responses:
        return []
    enc = tokenizer(list(responses), add_special_tokens=False, return_offsets_mapping=True)
    out = []
    for text, offsets in zip(responses, enc["offset_mapping"], strict=True):
        chars = char_step_ids(text, pattern)
        ids = [chars[a] if a < len(chars) else (chars[-1] if chars else 0) for a, _ in offsets]
        out.append([*ids, ids[-1] if ids else 0])
    return out


def encode_lists(
    tokenizer: Any,
    lists: Sequence[PreferenceList],
    *,
    max_length: int,
    device: str = "cpu",
    step_pattern: str = DEFAULT_STEP_PATTERN,
) -> ListBatch:
    """Tokenise preference lists into a :class:`ListBatch` (N = the longest list).

    Raises ValueError naming the list and member when a sequence is longer than ``max_length`` tokens
    (sequences are never truncated: a cut trajectory would be scored as a different one)."""
    if isinstance(lists, PreferenceList) or not isinstance(lists, Sequence):
        raise TypeError("lists must be a sequence of PreferenceList")
    if len(lists) == 0:
        raise ValueError("no preference lists given: need at least one")
    for i, pl in enumerate(lists):
        if not isinstance(pl, PreferenceList):
            raise TypeError(f"lists[{i}] is a {type(pl).__name__}, expected a PreferenceList")
    n = max(len(pl) for pl in lists)
    prompts, responses, real = [], [], []
    for pl in lists:
        for j in range(n):
            prompts.append(pl.prompt)
            responses.append(pl.responses[j] if j < len(pl) else "")
            real.append(j < len(pl))
    p_len = [len(ids) for ids in tokenizer(prompts, add_special_tokens=False)["input_ids"]]
    r_len = [len(ids) for ids in tokenizer(responses, add_special_tokens=False)["input_ids"]]
    for k, (a, b) in enumerate(zip(p_len, r_len, strict=True)):
        if 2 + a + b > max_length:
            raise ValueError(
                f"list {k // n}, response {k % n} is {2 + a + b} tokens with its prompt, bos and eos, "
                f"more than max_length={max_length}: responses longer than the context are not truncated; "
                "drop the list or raise max_length (and the model's positions)"
            )
    enc = encode_prompt_response(tokenizer, prompts, responses, max_length=max_length, device="cpu")
    b_, l_ = len(lists), enc["input_ids"].shape[1]
    steps = torch.zeros((b_ * n, l_), dtype=torch.long)
    for k, ids in enumerate(response_step_ids(tokenizer, responses, step_pattern)):
        cols = torch.nonzero(enc["response_mask"][k]).flatten()
        steps[k, cols] = torch.tensor(ids, dtype=torch.long)
    scores = torch.tensor(
        [[pl.scores[j] if j < len(pl) else 0.0 for j in range(n)] for pl in lists], dtype=torch.float32
    )
    mask = torch.tensor(real, dtype=torch.bool).reshape(b_, n)
    # padding members: keep them out of every loss term
    rmask = enc["response_mask"].reshape(b_, n, l_) & mask[:, :, None]
    batch = ListBatch(
        enc["input_ids"].reshape(b_, n, l_),
        enc["attention_mask"].reshape(b_, n, l_),
        rmask,
        steps.reshape(b_, n, l_) * rmask,
        scores,
        mask,
    )
    return batch.to(device)


def policy_logprobs(
    model: torch.nn.Module, batch: dict[str, Tensor], *, hidden: bool = True
) -> tuple[Tensor, Tensor | None]:
    """One forward of ``model`` on a flat (M, L) batch: ``(per_token (M, L), last hidden (M, L, H) | None)``.

    ``per_token`` follows :func:`paperkit.lm.sequence_logprobs`: log p(token_i | tokens_<i) on the
    response tokens, 0 elsewhere; differentiable. The hidden state at position i is the last layer's
    output at token i."""
    out = model(
        input_ids=batch["input_ids"], attention_mask=batch["attention_mask"], output_hidden_states=hidden
    )
    logits = out.logits
    ids, mask = batch["input_ids"], batch["response_mask"]
    logp = torch.log_softmax(logits[:, :-1].to(torch.promote_types(logits.dtype, torch.float32)), dim=-1)
    picked = logp.gather(-1, ids[:, 1:, None]).squeeze(-1)
    scored = torch.where(mask[:, 1:], picked, torch.zeros_like(picked))
    per_token = torch.cat([torch.zeros_like(scored[:, :1]), scored], dim=1)
    return per_token, (out.hidden_states[-1] if hidden else None)


def token_logratios(
    policy: torch.nn.Module, reference: torch.nn.Module, batch: ListBatch, *, hidden: bool = True
) -> tuple[Tensor, Tensor | None]:
    """ℓ (B, N, L) = log π_θ − log π_ref per response token (0 elsewhere), and the policy's last hidden
    states (B, N, L, H) when ``hidden``. The reference runs without gradient."""
    b, n, l_ = batch.shape
    flat = batch.flat()
    pol, h = policy_logprobs(policy, flat, hidden=hidden)
    with torch.no_grad():
        _, ref = sequence_logprobs(reference, flat)
    ell = (pol - ref.to(pol.dtype)).reshape(b, n, l_)
    return ell, (h.reshape(b, n, l_, -1) if h is not None else None)


def check_models(
    policy: torch.nn.Module,
    reference: torch.nn.Module,
    tokenizer: Any,
    reference_tokenizer: Any | None = None,
    *,
    max_length: int | None = None,
) -> None:
    """Refuse a policy/reference pair that cannot be compared token by token (ValueError)."""
    if policy is reference:
        raise ValueError(
            "the reference must be a separate frozen copy of the initial policy, not the policy itself"
        )
    if reference_tokenizer is not None and reference_tokenizer is not tokenizer:
        if reference_tokenizer.get_vocab() != tokenizer.get_vocab():
            raise ValueError(
                "the policy's and the reference's tokenizers differ (different vocabularies): the log-ratio "
                "log π_θ(y_t) − log π_ref(y_t) needs both models to score the same tokens"
            )
        for name in ("bos_token_id", "eos_token_id", "pad_token_id"):
            if getattr(reference_tokenizer, name, None) != getattr(tokenizer, name, None):
                raise ValueError(f"the policy's and the reference's tokenizers differ in {name}")
    pv = getattr(getattr(policy, "config", None), "vocab_size", None)
    rv = getattr(getattr(reference, "config", None), "vocab_size", None)
    if pv is not None and rv is not None and pv != rv:
        raise ValueError(
            f"the policy has a vocabulary of {pv} tokens and the reference {rv}: they were built for "
            "different tokenizers"
        )
    if pv is not None and len(tokenizer) > pv:
        raise ValueError(f"the tokenizer has {len(tokenizer)} tokens but the models only {pv}")
    if max_length is not None:
        for name, model in (("policy", policy), ("reference", reference)):
            ctx = getattr(getattr(model, "config", None), "max_position_embeddings", None)
            if isinstance(ctx, int) and max_length > ctx:
                raise ValueError(f"max_length={max_length} exceeds the {name}'s context of {ctx} positions")
