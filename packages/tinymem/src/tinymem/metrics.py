"""Memorisation and accuracy metrics for any HF causal LM on TinyMem token rows."""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from paperkit.lm.models import model_device
from paperkit.validation import check_int

from tinymem.data import PAD, noise_in_window


@torch.no_grad()
def greedy_continuation(
    model: torch.nn.Module, prompts: torch.Tensor, n_tokens: int, batch_size: int = 256
) -> torch.Tensor:
    """Greedy-decode exactly ``n_tokens`` tokens after each prompt (EOS does not stop it, as
    the official min_length = max_length).

    Args:
        prompts: (B, P) int64 token ids. Returns: (B, n_tokens) int64.
    """
    check_int(n_tokens, "n_tokens", low=0)
    was = model.training
    model.eval()
    dev = model_device(model)
    outs = []
    for s in range(0, len(prompts), batch_size):
        x = prompts[s : s + batch_size].to(dev)
        for _ in range(n_tokens):  # no KV cache: any model returning .logits works, and these are tiny
            nxt = model(input_ids=x).logits[:, -1].argmax(-1, keepdim=True)
            x = torch.cat([x, nxt], dim=1)
        outs.append(x[:, prompts.shape[1] :].cpu())
    model.train(was)
    return torch.cat(outs) if outs else torch.empty((0, n_tokens), dtype=torch.long)


@dataclass(frozen=True)
class MemResult:
    """Memorisation of the eligible noised sequences (noise inside the window).

    Attributes:
        percent_memorized: % of eligible sequences whose greedy continuation of the clean prompt equals the
            noised training continuation on all ``window`` tokens.
        percent_clean_correct: % whose continuation equals the clean continuation instead.
        memorized_idx: indices (into the given noised rows) of the memorised sequences.
        n_eligible: number of eligible sequences.
    """

    percent_memorized: float
    percent_clean_correct: float
    memorized_idx: torch.Tensor
    n_eligible: int


def percent_memorized(
    model: torch.nn.Module, noised: torch.Tensor, clean: torch.Tensor, prompt_len: int, window: int
) -> MemResult:
    """The paper's memorisation metric (official ``refined_check_percent_memorized``).

    Args:
        noised, clean: (n, T) int64 noised training rows and their clean twins.
        prompt_len, window: P and K; the window [P, P+K) must fit in T.
    """
    if noised.shape != clean.shape or noised.ndim != 2:
        raise ValueError(
            f"noised and clean must share one (n, T) shape, got {tuple(noised.shape)}, {tuple(clean.shape)}"
        )
    check_int(prompt_len, "prompt_len", low=1)
    check_int(window, "window", low=1)
    if prompt_len + window > noised.shape[1]:
        raise ValueError(
            f"the window [{prompt_len}, {prompt_len + window}) is longer than the sequences "
            f"({noised.shape[1]} tokens)"
        )
    elig = noise_in_window(noised, clean, prompt_len, window).nonzero().flatten()
    if len(elig) == 0:
        return MemResult(float("nan"), float("nan"), torch.empty(0, dtype=torch.long), 0)
    gen = greedy_continuation(model, clean[elig, :prompt_len], window)
    sl = slice(prompt_len, prompt_len + window)
    mem = (gen == noised[elig, sl]).all(dim=1)
    cc = (gen == clean[elig, sl]).all(dim=1)
    n = len(elig)
    return MemResult(100.0 * float(mem.sum()) / n, 100.0 * float(cc.sum()) / n, elig[mem], n)


def token_losses(model: torch.nn.Module, seqs: torch.Tensor, *, include_pad: bool = True) -> torch.Tensor:
    """Per-sequence mean next-token cross-entropy (differentiable), the official ``clm_loss_fn``.

    Args:
        seqs: (B, T) int64 on the model's device. include_pad: also score PAD targets (training does, as
            the official ``model(batch, labels=batch)``). Returns: (B,) nats per token.
    """
    logits = model(input_ids=seqs).logits[:, :-1]
    tgt = seqs[:, 1:]
    nll = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tgt.reshape(-1), reduction="none").view(
        tgt.shape
    )
    if include_pad:
        return nll.mean(dim=1)
    mask = (tgt != PAD).to(nll.dtype)
    return (nll * mask).sum(1) / mask.sum(1).clamp_min(1.0)


@dataclass(frozen=True)
class NextTokenScores:
    """Next-token scores of a model on (n, T) rows.

    Attributes:
        accuracy: % of next tokens predicted exactly by argmax, PAD targets included (official ``accuracy``).
        accuracy_real_tokens: the same over the real (non-PAD) targets only: digits, spaces, EOS.
        perplexity: exp(mean NLL of the non-PAD next tokens).
    """

    accuracy: float
    accuracy_real_tokens: float
    perplexity: float


@torch.no_grad()
def next_token_scores(model: torch.nn.Module, seqs: torch.Tensor, batch_size: int = 512) -> NextTokenScores:
    """Accuracy (with and without PAD targets) and perplexity on (n, T) rows, one forward pass a batch.

    Raises:
        ValueError: ``seqs`` has no row or fewer than 2 columns (no next token to score).
    """
    if seqs.dim() != 2 or seqs.shape[0] == 0 or seqs.shape[1] < 2:
        raise ValueError(
            f"seqs must be (n, T) token rows with n >= 1 and T >= 2 (a next token to score), got shape "
            f"{tuple(seqs.shape)}"
        )
    was = model.training
    model.eval()
    dev = model_device(model)
    hit = tot = hit_real = tot_real = 0
    nll = 0.0
    for s in range(0, len(seqs), batch_size):
        x = seqs[s : s + batch_size].to(dev)
        logits = model(input_ids=x).logits[:, :-1]
        tgt = x[:, 1:]
        real = tgt != PAD
        right = logits.argmax(-1) == tgt
        hit += int(right.sum())
        tot += tgt.numel()
        hit_real += int((right & real).sum())
        tot_real += int(real.sum())
        ce = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tgt.reshape(-1), reduction="none").view(
            tgt.shape
        )
        nll += float(ce[real].sum())
    model.train(was)
    return NextTokenScores(
        accuracy=100.0 * hit / max(tot, 1),
        accuracy_real_tokens=100.0 * hit_real / max(tot_real, 1),
        perplexity=float(torch.exp(torch.tensor(nll / tot_real))) if tot_real else math.nan,
    )


def token_accuracy(
    model: torch.nn.Module, seqs: torch.Tensor, *, include_pad: bool = True, batch_size: int = 512
) -> float:
    """% of next tokens predicted exactly by argmax on (n, T) rows.

    ``include_pad=True`` is the official ``accuracy`` (every position, PAD targets included);
    ``include_pad=False`` scores only the real tokens (digits, spaces, EOS).
    """
    scores = next_token_scores(model, seqs, batch_size)
    return scores.accuracy if include_pad else scores.accuracy_real_tokens


def perplexity(model: torch.nn.Module, seqs: torch.Tensor, batch_size: int = 512) -> float:
    """exp(mean NLL of the non-PAD next tokens) on (n, T) rows.

    Raises:
        ValueError: ``seqs`` is empty or holds no non-PAD next token (a perplexity of nothing is undefined,
            not 1).
    """
    ppl = next_token_scores(model, seqs, batch_size).perplexity
    if math.isnan(ppl):
        raise ValueError("seqs holds no non-PAD next token: perplexity is undefined")
    return ppl
