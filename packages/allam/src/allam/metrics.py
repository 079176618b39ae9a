r"""Language-model metrics that compare across tokenizers, and graded QA scores.

- Text log-probability: each text is ``[bos] + tokens``; ``log p(text) = sum_i log p(tok_i | bos, tok_<i)``
  (the eos is not scored, so the number belongs to the string, whatever the tokenizer).
- Bits per byte: ``BPB = sum_texts -log2 p(text) / sum_texts |utf8(text)|`` (spec: compare languages and
  tokenizers in BPB, not per-token loss). A model uniform over the 256 byte tokens has BPB = 8.
- LM loss: ``sum -ln p / number of tokens`` (nats per token; tokenizer dependent).
- QA (spec: graded metric beside exact match): for a probe with candidates ``c_1..c_m`` (the true one
  included), ``score(c) = log p(c | [bos] + prompt)`` summed over c's tokens; ``rank`` = number of
  candidates scoring strictly higher than the true one (0 = best), reported as
  ``rank_score = 1 - rank / (m - 1)`` (1 best, 0 worst, 0.5 chance); ``exact`` = greedy decoding from the
  prompt yields the true answer's tokens (checked in one teacher-forced pass: every answer token is the
  argmax given the prompt and the answer tokens before it).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from paperkit.validation import check_int, check_strings

from allam.data import Probe

__all__ = ["bits_per_byte", "lm_loss", "qa_scores", "score_continuations", "text_logprobs"]


def _rows(prefixes: list[list[int]], conts: list[list[int]], pad: int) -> tuple[torch.Tensor, ...]:
    lengths = [len(p) + len(c) for p, c in zip(prefixes, conts, strict=True)]
    width = max(lengths)
    ids = torch.full((len(lengths), width), pad, dtype=torch.long)
    mask = torch.zeros((len(lengths), width), dtype=torch.bool)
    attn = torch.zeros((len(lengths), width), dtype=torch.long)
    for b, (p, c) in enumerate(zip(prefixes, conts, strict=True)):
        ids[b, : len(p) + len(c)] = torch.tensor(p + c)
        attn[b, : len(p) + len(c)] = 1
        mask[b, len(p) : len(p) + len(c)] = True
    return ids, attn, mask


@torch.no_grad()
def score_continuations(
    model: Any,
    prefixes: list[list[int]],
    conts: list[list[int]],
    *,
    pad_id: int,
    device: str = "cpu",
    batch_size: int = 256,
) -> tuple[np.ndarray, np.ndarray]:
    """``(logp, greedy)`` per row: the summed log-probability (nats) of ``conts[b]`` after ``prefixes[b]``
    and whether every continuation token is the argmax. Prefixes must be non-empty."""
    if any(not p for p in prefixes):
        raise ValueError("every prefix needs at least one token (the bos)")
    logps, greedy = [], []
    for s in range(0, len(prefixes), batch_size):
        ids, attn, mask = _rows(prefixes[s : s + batch_size], conts[s : s + batch_size], pad_id)
        ids, attn, mask = ids.to(device), attn.to(device), mask.to(device)
        logits = model(input_ids=ids, attention_mask=attn).logits[:, :-1].float()
        logp = torch.log_softmax(logits, -1).gather(-1, ids[:, 1:, None]).squeeze(-1)
        hit = logits.argmax(-1) == ids[:, 1:]
        m = mask[:, 1:]
        logps.append(torch.where(m, logp, torch.zeros_like(logp)).sum(-1).cpu())
        greedy.append((hit | ~m).all(-1).cpu())
    return torch.cat(logps).double().numpy(), torch.cat(greedy).numpy()


def text_logprobs(
    model: Any, tokenizer: Any, texts: Sequence[str], *, device: str = "cpu"
) -> tuple[np.ndarray, np.ndarray]:
    """``(log p(text) in nats, number of tokens)`` for each text (module docstring)."""
    texts = check_strings(texts, "texts")
    if not texts:
        raise ValueError("texts is empty: give at least one text")
    ids = tokenizer(list(texts), add_special_tokens=False)["input_ids"]
    bos = [[tokenizer.bos_token_id]] * len(ids)
    logp, _ = score_continuations(model, bos, [list(i) for i in ids], pad_id=tokenizer.pad_token_id,
                                  device=device)  # fmt: skip
    return logp, np.array([len(i) for i in ids])


def bits_per_byte(model: Any, tokenizer: Any, texts: Sequence[str], *, device: str = "cpu") -> float:
    """Bits per UTF-8 byte of ``texts`` under ``model`` (module docstring)."""
    logp, _ = text_logprobs(model, tokenizer, texts, device=device)
    n_bytes = sum(len(t.encode("utf-8")) for t in texts)
    if n_bytes == 0:
        raise ValueError("texts hold no bytes")
    return float(-logp.sum() / math.log(2) / n_bytes)


def lm_loss(model: Any, tokenizer: Any, texts: Sequence[str], *, device: str = "cpu") -> float:
    """Nats per token of ``texts`` (tokenizer dependent; use :func:`bits_per_byte` across tokenizers)."""
    logp, n = text_logprobs(model, tokenizer, texts, device=device)
    return float(-logp.sum() / max(int(n.sum()), 1))


def qa_scores(
    model: Any, tokenizer: Any, probes: Sequence[Probe], *, device: str = "cpu", batch_size: int = 256
) -> dict[str, np.ndarray]:
    """``{"rank_score", "exact", "rank"}``: (n_probes,) arrays (module docstring), one batched pass."""
    if not probes or any(not isinstance(p, Probe) for p in probes):
        raise ValueError("probes must be a non-empty sequence of allam.data.Probe")
    check_int(batch_size, "batch_size", low=1)
    enc = lambda xs: [list(i) for i in tokenizer(list(xs), add_special_tokens=False)["input_ids"]]  # noqa: E731
    prompts = enc([p.prompt for p in probes])
    bos = tokenizer.bos_token_id
    prefixes, conts, owner, truth = [], [], [], []
    for i, p in enumerate(probes):
        cands = enc(p.candidates)
        for c, text in zip(cands, p.candidates, strict=True):
            prefixes.append([bos, *prompts[i]])
            conts.append(c)
            owner.append(i)
            truth.append(text == p.answer)
    logp, greedy = score_continuations(model, prefixes, conts, pad_id=tokenizer.pad_token_id,
                                       device=device, batch_size=batch_size)  # fmt: skip
    owner_a, truth_a = np.array(owner), np.array(truth)
    true_score = np.zeros(len(probes))
    true_score[owner_a[truth_a]] = logp[truth_a]
    rank = np.zeros(len(probes))
    np.add.at(rank, owner_a, (logp > true_score[owner_a]).astype(float))
    m = np.array([len(p.candidates) for p in probes], dtype=float)
    exact = np.zeros(len(probes), dtype=bool)
    exact[owner_a[truth_a]] = greedy[truth_a]
    return {"rank_score": 1.0 - rank / np.maximum(m - 1, 1), "exact": exact.astype(float), "rank": rank}
