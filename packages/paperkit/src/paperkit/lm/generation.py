"""Batched text generation: greedy or temperature sampling (optionally top-k / top-p) with a seeded generator,
stop strings, KV cache."""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch
from transformers import PreTrainedTokenizerBase

from paperkit.lm.models import check_device, special_ids
from paperkit.lm.scoring import token_ids
from paperkit.validation import check_strings


@dataclass(frozen=True)
class Completion:
    """One generated completion.

    Attributes:
        text: the completion (prompt not included), cut before the first stop string; specials removed.
        finish_reason: ``"stop"`` (the model emitted eos or a stop string appeared) or ``"length"``
            (``max_new_tokens`` were generated).
        prompt_tokens: the prompt's length in tokens, ``<bos>`` included.
        completion_tokens: tokens the model generated for this completion (a final eos included).
        token_ids: those generated token ids, in order (a final eos and any stop string's tokens
            included): the actions an RL loss scores.
    """

    text: str
    finish_reason: str
    prompt_tokens: int
    completion_tokens: int
    token_ids: tuple[int, ...] = ()


def filter_logits(logits: torch.Tensor, top_k: int | None = None, top_p: float | None = None) -> torch.Tensor:
    """``logits`` (n, V) with every token outside the top-k and the nucleus set to ``-inf``.

    top-k keeps the ``top_k`` largest logits of each row (``None`` or 0: all; tokens tied with the k-th
    largest are all kept). top-p (then, on what top-k kept) keeps the smallest set of most probable
    tokens whose softmax mass reaches ``top_p``: a token stays when the mass of the tokens more probable
    than it is below ``top_p`` (``None`` or 1: all); the most probable token always stays (so ``top_p=0``
    keeps only it).
    """
    if top_k is not None and (not isinstance(top_k, int) or isinstance(top_k, bool) or top_k < 0):
        raise ValueError(f"top_k must be None or an int >= 0 (0: off), got {top_k!r}")
    if top_p is not None and (
        not isinstance(top_p, (int, float)) or isinstance(top_p, bool) or not 0 <= top_p <= 1
    ):
        raise ValueError(f"top_p must be None or a number in [0, 1] (1: off), got {top_p!r}")
    out = logits
    if top_k and top_k < logits.shape[-1]:
        kth = torch.topk(out, top_k, dim=-1).values[..., -1:]
        out = out.masked_fill(out < kth, -torch.inf)
    if top_p is not None and top_p < 1:
        probs, order = torch.sort(torch.softmax(out, dim=-1), dim=-1, descending=True)
        before = probs.cumsum(-1) - probs  # mass of the strictly more probable tokens
        drop_sorted = before >= top_p
        drop_sorted[..., 0] = False
        drop = torch.zeros_like(drop_sorted).scatter(-1, order, drop_sorted)
        out = out.masked_fill(drop, -torch.inf)
    return out


def context_length(model: torch.nn.Module) -> int | None:
    """The longest sequence ``model`` accepts (``config.max_position_embeddings``), if it says."""
    value = getattr(getattr(model, "config", None), "max_position_embeddings", None)
    return int(value) if isinstance(value, int) else None


def _cache_kwarg(model: torch.nn.Module) -> str:
    # transformers 5 calls the KV cache argument `cache`; 4.x calls it `past_key_values`.
    return "cache" if "cache" in inspect.signature(model.forward).parameters else "past_key_values"


def _decode(tokenizer: PreTrainedTokenizerBase, ids: list[int]) -> str:
    text = tokenizer.decode(ids, skip_special_tokens=True)
    assert isinstance(text, str)
    return text


def _cut(text: str, stop: Sequence[str]) -> tuple[str, bool]:
    hits = [i for i in (text.find(s) for s in stop) if i >= 0]
    return (text[: min(hits)], True) if hits else (text, False)


def prompt_ids(tokenizer: PreTrainedTokenizerBase, prompts: Sequence[str]) -> list[list[int]]:
    """``[bos] + tokens(prompt)`` for each prompt: the prefix :func:`encode_prompt_response` trains on."""
    bos, _, _ = special_ids(tokenizer)
    return [[bos, *ids] for ids in token_ids(tokenizer, prompts)]


def generate_completions(
    model: torch.nn.Module,
    tokenizer: PreTrainedTokenizerBase,
    prompts: Sequence[str],
    *,
    max_new_tokens: int,
    temperature: float = 0.0,
    stop: Sequence[str] = (),
    seed: int | None = None,
    batch_size: int = 64,
    device: str = "cpu",
    top_k: int | None = None,
    top_p: float | None = None,
) -> list[Completion]:
    """:func:`generate`, returning each completion with its finish reason and token counts."""
    prompts = check_strings(prompts, "prompts")
    if isinstance(stop, str):
        stop = [stop]
    stop = check_strings(stop if stop is not None else (), "stop")
    if any(s == "" for s in stop):
        raise ValueError("stop strings must be non-empty")
    if not isinstance(max_new_tokens, int) or isinstance(max_new_tokens, bool) or max_new_tokens < 1:
        raise ValueError(f"max_new_tokens must be an int >= 1, got {max_new_tokens!r}")
    if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size < 1:
        raise ValueError(f"batch_size must be an int >= 1, got {batch_size!r}")
    if not isinstance(temperature, (int, float)) or isinstance(temperature, bool) or not temperature >= 0:
        raise ValueError(f"temperature must be a number >= 0, got {temperature!r}")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or seed < 0):
        raise ValueError(f"seed must be None or a non-negative integer, got {seed!r}")
    filter_logits(torch.zeros(1, 1), top_k, top_p)  # validates both
    dev = check_device(model, device)
    rows = prompt_ids(tokenizer, prompts)
    limit = context_length(model)
    if limit is not None:
        for i, row in enumerate(rows):
            if len(row) + max_new_tokens > limit:
                raise ValueError(
                    f"prompt {i} is {len(row)} tokens and max_new_tokens={max_new_tokens}: "
                    f"together more than the model's {limit} positions"
                )
    generator: torch.Generator | None = None
    if temperature > 0:
        generator = torch.Generator(device=dev)
        if seed is None:
            generator.seed()  # fresh entropy, without touching the global RNG
        else:
            generator.manual_seed(seed)
    was_training = model.training
    model.eval()
    out: list[Completion] = []
    try:
        with torch.no_grad():
            for start in range(0, len(rows), batch_size):
                out.extend(
                    _generate_batch(
                        model,
                        tokenizer,
                        rows[start : start + batch_size],
                        max_new_tokens=max_new_tokens,
                        temperature=float(temperature),
                        top_k=top_k,
                        top_p=top_p,
                        stop=stop,
                        generator=generator,
                        device=dev,
                    )
                )
    finally:
        model.train(was_training)
    return out


def _generate_batch(
    model: torch.nn.Module,
    tokenizer: PreTrainedTokenizerBase,
    rows: list[list[int]],
    *,
    max_new_tokens: int,
    temperature: float,
    top_k: int | None,
    top_p: float | None,
    stop: Sequence[str],
    generator: torch.Generator | None,
    device: torch.device,
) -> list[Completion]:
    _, eos, pad = special_ids(tokenizer)
    n, width = len(rows), max(map(len, rows))
    # Left padding: every row's last prompt token sits in the last column; positions count real tokens only.
    ids = torch.full((n, width), pad, dtype=torch.long)
    mask = torch.zeros((n, width), dtype=torch.long)
    for b, row in enumerate(rows):
        ids[b, width - len(row) :] = torch.tensor(row, dtype=torch.long)
        mask[b, width - len(row) :] = 1
    ids, mask = ids.to(device), mask.to(device)
    positions = (mask.cumsum(-1) - 1).clamp(min=0)
    cache_kw = _cache_kwarg(model)
    cache: Any = None
    generated: list[list[int]] = [[] for _ in rows]
    done = [False] * n
    reasons = ["length"] * n
    step_ids, step_pos = ids, positions
    for _ in range(max_new_tokens):
        kwargs: dict[str, Any] = {"attention_mask": mask, "position_ids": step_pos, "use_cache": True}
        if cache is not None:
            kwargs[cache_kw] = cache
        result = model(input_ids=step_ids, **kwargs)
        cache = getattr(result, "cache", None) if cache_kw == "cache" else result.past_key_values
        logits = result.logits[:, -1]
        logits = logits.to(torch.promote_types(logits.dtype, torch.float32))  # (n, V)
        if temperature == 0:
            nxt = logits.argmax(-1)
        else:
            probs = torch.softmax(filter_logits(logits / temperature, top_k, top_p), dim=-1)
            nxt = torch.multinomial(probs, 1, generator=generator).squeeze(-1)
        for b, token in enumerate(nxt.tolist()):
            if done[b]:
                continue
            generated[b].append(token)
            if token == eos or (stop and _cut(_decode(tokenizer, generated[b]), stop)[1]):
                done[b], reasons[b] = True, "stop"
        if all(done):
            break
        step_ids = nxt[:, None]
        step_pos = step_pos[:, -1:] + 1
        mask = torch.cat([mask, torch.ones_like(mask[:, :1])], dim=1)
    completions = []
    for b, tokens in enumerate(generated):
        body = tokens[:-1] if tokens and tokens[-1] == eos else tokens
        text, _ = _cut(_decode(tokenizer, body), stop)
        completions.append(Completion(text, reasons[b], len(rows[b]), len(tokens), tuple(tokens)))
    return completions


def generate(
    model: torch.nn.Module,
    tokenizer: PreTrainedTokenizerBase,
    prompts: Sequence[str],
    *,
    max_new_tokens: int,
    temperature: float = 0.0,
    stop: Sequence[str] = (),
    seed: int | None = None,
    batch_size: int = 64,
    device: str = "cpu",
    top_k: int | None = None,
    top_p: float | None = None,
) -> list[str]:
    """Complete each prompt; return the completions only (the prompt stripped), in the order given.

    Each prompt is fed as ``[bos] + tokens(prompt)`` (as :func:`encode_prompt_response` trains), batches
    of ``batch_size`` left-padded with explicit position ids, decoding with a KV cache. A completion ends
    at the model's eos, when one of ``stop`` appears in its text, or after ``max_new_tokens`` tokens; it is
    returned cut before the first stop string, eos and other specials removed.

    Args:
        temperature: 0 is greedy (argmax, ties to the lowest id); > 0 samples from softmax(logits / T)
            with a ``torch.Generator`` on ``device`` seeded with ``seed`` (``None``: fresh entropy).
            Same seed, prompts, batch_size and device => same completions.
        top_k, top_p: when sampling, draw only from the ``top_k`` most likely tokens and from the nucleus
            of mass ``top_p`` of softmax(logits / T) (:func:`filter_logits`; ``None``: off). Greedy
            decoding ignores them.
        stop: strings that end a completion (not included in it).
        device: where the model lives and the tensors are made.

    Raises ValueError when a prompt plus ``max_new_tokens`` exceeds the model's positions.
    """
    return [
        c.text
        for c in generate_completions(
            model,
            tokenizer,
            prompts,
            max_new_tokens=max_new_tokens,
            temperature=temperature,
            stop=stop,
            seed=seed,
            batch_size=batch_size,
            device=device,
            top_k=top_k,
            top_p=top_p,
        )
    ]
