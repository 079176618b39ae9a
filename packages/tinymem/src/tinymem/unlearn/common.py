"""Shared checks and losses of the unlearning methods."""

from __future__ import annotations

import warnings

import torch
import torch.nn.functional as F
from paperkit.validation import check_probability

from tinymem.metrics import token_losses


def check_ratio(ratio: float, name: str = "ratio") -> float:
    """A removal fraction must lie in (0, 1): ValueError otherwise."""
    # a fraction of the weights / neurons to remove
    return check_probability(ratio, name, allow_zero=False, allow_one=False)


def warn_if_empty(ratio: float, numel: int, what: str) -> int:
    """``int(ratio·numel)``; warns when it is 0 (nothing removed)."""
    n = int(ratio * numel)
    if n < 1:
        warnings.warn(
            f"ratio={ratio} of {numel} {what} is < 1: nothing is removed", RuntimeWarning, stacklevel=3
        )
    return n


def check_rows(seqs: torch.Tensor, name: str) -> torch.Tensor:
    """(n, T) int64 token rows (n may be 0); de-duplicated by content, order kept."""
    if not isinstance(seqs, torch.Tensor) or seqs.ndim != 2 or seqs.dtype != torch.long:
        raise TypeError(f"{name} must be an (n, T) int64 tensor of token ids")
    if len(seqs) == 0:
        return seqs
    _, inverse = torch.unique(seqs, dim=0, return_inverse=True)
    first = torch.full((int(inverse.max()) + 1,), len(seqs), dtype=torch.long)
    first = first.scatter_reduce(0, inverse, torch.arange(len(seqs)), reduce="amin")
    return seqs[torch.sort(first).values]


def suffix_loss(model: torch.nn.Module, seqs: torch.Tensor, prompt_len: int, window: int) -> torch.Tensor:
    """Mean cross-entropy of the memorised continuation tokens [prompt_len, prompt_len+window) (scalar)."""
    logits = model(input_ids=seqs).logits[:, prompt_len - 1 : prompt_len + window - 1]
    tgt = seqs[:, prompt_len : prompt_len + window]
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tgt.reshape(-1))


def sequence_loss(model: torch.nn.Module, seqs: torch.Tensor) -> torch.Tensor:
    """(B,) per-sequence causal-LM loss (official ``clm_loss_fn`` before its batch mean)."""
    return token_losses(model, seqs, include_pad=True)
