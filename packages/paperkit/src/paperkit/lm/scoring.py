"""Prompt/response batches and the log-probabilities a preference loss scores."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import chain

import torch
from transformers import PreTrainedTokenizerBase

from paperkit.lm.models import available_device, special_ids
from paperkit.validation import check_bool, check_strings


def token_ids(tokenizer: PreTrainedTokenizerBase, texts: Sequence[str]) -> list[list[int]]:
    """Each text's token ids, without special tokens added."""
    if not texts:
        return []
    backend = getattr(tokenizer, "backend_tokenizer", None) if getattr(tokenizer, "is_fast", False) else None
    if backend is not None and backend.truncation is None and backend.padding is None:
        # the Rust tokenizer itself: the same ids without the per-text Python wrapping (half the time)
        return [e.ids for e in backend.encode_batch(list(texts), add_special_tokens=False)]
    enc = tokenizer(list(texts), add_special_tokens=False)
    return [list(ids) for ids in enc["input_ids"]]


def encode_prompt_response(
    tokenizer: PreTrainedTokenizerBase,
    prompts: Sequence[str],
    responses: Sequence[str],
    *,
    max_length: int,
    device: str = "cpu",
    drop_long: bool = False,
) -> dict[str, torch.Tensor]:
    """Tokenise prompt/response pairs into one right-padded batch.

    Row ``b`` is ``[bos] + tokens(prompts[b]) + tokens(responses[b]) + [eos]``, then ``pad`` up to the
    longest row. Prompt and response are tokenised separately (as TRL does for DPO), so a BPE merge never
    crosses the boundary and the prompt tokens are the same for every response.

    Args:
        prompts, responses: equal-length, non-empty sequences of strings (either string may be empty).
        max_length: the longest row allowed; a longer one is an error (or left out), never truncated.
        device: where the tensors are created.
        drop_long: leave out the pairs longer than ``max_length`` (the others keep their order) instead of
            raising; at least one pair must fit.

    Returns:
        ``input_ids``: (B, L) int64; ``attention_mask``: (B, L) int64, 1 on real tokens;
        ``response_mask``: (B, L) bool, True on the response tokens and the final eos (the tokens a
        preference loss scores). ``L`` is the longest row's length (<= ``max_length``).
    """
    prompts = check_strings(prompts, "prompts")
    responses = check_strings(responses, "responses")
    if not isinstance(max_length, int) or isinstance(max_length, bool) or max_length < 2:
        raise ValueError(f"max_length must be an int >= 2 (room for bos and eos), got {max_length!r}")
    dev = available_device(device)
    if not prompts:
        raise ValueError("prompts and responses are empty: give at least one pair")
    if len(prompts) != len(responses):
        raise ValueError(f"prompts and responses differ in length: {len(prompts)} != {len(responses)}")
    check_bool(drop_long, "drop_long")
    bos, eos, pad = special_ids(tokenizer)
    p_ids, r_ids = token_ids(tokenizer, prompts), token_ids(tokenizer, responses)
    lengths = [2 + len(p) + len(r) for p, r in zip(p_ids, r_ids, strict=True)]
    if drop_long:
        keep = [i for i, n in enumerate(lengths) if n <= max_length]
        if not keep:
            raise ValueError(f"no pair fits max_length={max_length} (the shortest is {min(lengths)} tokens)")
        p_ids, r_ids, lengths = [p_ids[i] for i in keep], [r_ids[i] for i in keep], [lengths[i] for i in keep]
    for i, n in enumerate(lengths):
        if n > max_length:
            raise ValueError(
                f"pair {i} is {n} tokens long ([bos] + {len(p_ids[i])} prompt + {len(r_ids[i])} response "
                f"+ [eos]), more than max_length={max_length}; shorten it or raise max_length"
            )
    # rows filled at once: every token's (row, column) from the lengths, no Python loop over rows
    n_len = torch.tensor(lengths, dtype=torch.long)
    p_len = torch.tensor([len(p) for p in p_ids], dtype=torch.long)
    column = torch.arange(max(lengths))
    attention = (column < n_len[:, None]).long()
    response = (column > p_len[:, None]) & attention.bool()
    ids = torch.full(attention.shape, pad, dtype=torch.long)
    ids[:, 0] = bos
    ids[torch.arange(len(lengths)), n_len - 1] = eos
    inner = (column >= 1) & (column < n_len[:, None] - 1)
    ids[inner] = torch.tensor(
        list(chain.from_iterable(chain(p, r) for p, r in zip(p_ids, r_ids, strict=True))), dtype=torch.long
    )
    return {"input_ids": ids.to(dev), "attention_mask": attention.to(dev), "response_mask": response.to(dev)}


def sequence_logprobs(
    model: torch.nn.Module, batch: Mapping[str, torch.Tensor]
) -> tuple[torch.Tensor, torch.Tensor]:
    """Log-probabilities of the response tokens of ``batch`` under ``model`` (differentiable).

    Args:
        model: a causal LM returning ``.logits`` of shape (B, L, V).
        batch: ``input_ids`` (B, L) int64, ``attention_mask`` (B, L), ``response_mask`` (B, L) bool, as
            :func:`encode_prompt_response` makes them; ``response_mask[:, 0]`` must be False (the first
            token has no context to be predicted from).

    Returns:
        ``(total, per_token)``: ``per_token`` (B, L) float32 (float64 for a float64 model) with
        ``per_token[b, i] = log p(input_ids[b, i] | input_ids[b, :i])`` where ``response_mask[b, i]``
        and 0 elsewhere; ``total`` (B,) = ``per_token.sum(-1)``. Gradients flow to the model's parameters.
    """
    for key in ("input_ids", "attention_mask", "response_mask"):
        if key not in batch:
            raise ValueError(f"batch lacks {key!r}; make it with encode_prompt_response")
    ids, attention, mask = batch["input_ids"], batch["attention_mask"], batch["response_mask"]
    if ids.ndim != 2 or attention.shape != ids.shape or mask.shape != ids.shape:
        raise ValueError(
            "input_ids, attention_mask and response_mask must share one (B, L) shape; got "
            f"{tuple(ids.shape)}, {tuple(attention.shape)}, {tuple(mask.shape)}"
        )
    if mask.dtype != torch.bool:
        raise TypeError(f"response_mask must be bool, got {mask.dtype}")
    if bool(mask[:, 0].any()):
        raise ValueError("response_mask[:, 0] is True somewhere: the first token has no log-probability")
    logits = model(input_ids=ids, attention_mask=attention).logits  # (B, L, V)
    dtype = torch.promote_types(logits.dtype, torch.float32)  # half-precision logits: softmax in float32
    logp = torch.log_softmax(logits[:, :-1].to(dtype), dim=-1)  # predicts tokens 1..L-1
    picked = logp.gather(-1, ids[:, 1:, None]).squeeze(-1)  # (B, L-1)
    scored = torch.where(mask[:, 1:], picked, torch.zeros_like(picked))
    per_token = torch.cat([torch.zeros_like(scored[:, :1]), scored], dim=1)  # (B, L)
    return per_token.sum(-1), per_token
