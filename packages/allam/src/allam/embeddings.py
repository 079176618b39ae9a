r"""Embeddings for the appended tokens (spec, method step 3), on any Hugging Face causal LM.

The model is resized with ``transformers``' own ``resize_token_embeddings`` (``mean_resizing=False``:
the rows it appends are then overwritten here), and each new token ``t`` gets, for the input embedding
``E`` and an untied output head ``W`` alike (a tied head shares ``E``'s rows):

- ``"mean_subword"`` (default): the old tokenizer cuts t's bytes into pieces ``u_1..u_k`` and
  $$E_{new}[t] = \frac1k \sum_{j=1}^k E_{old}[u_j], \qquad W_{new}[t] = \frac1k \sum_j W_{old}[u_j];$$
  a token the old tokenizer encodes as one piece gets exactly that piece's row.
- ``"mean_all"``: the mean of all old rows (transformers' ``mean_resizing`` centres new rows there too).
- ``"random"``: ``N(0, sigma^2)`` per entry, drawn from a CPU ``torch.Generator`` seeded with ``seed``.

An output-head bias, if any, is initialised the same way. Rows of old tokens are untouched, so logits of
old tokens on old-token input are unchanged (tests).
"""

from __future__ import annotations

import math
from typing import Any

import torch
from paperkit.validation import check_choice, check_positive, check_seed

__all__ = ["INITS", "piece_ids", "resize_and_init"]

INITS: tuple[str, ...] = ("mean_subword", "mean_all", "random")


def piece_ids(old_tokenizer: Any, new_tokenizer: Any, new_ids: range) -> list[list[int]]:
    """For each new id, the old tokenizer's ids of that token's pieces (BPE of its byte string)."""
    model = old_tokenizer.backend_tokenizer.model
    unk = old_tokenizer.unk_token_id
    out = []
    for t in new_ids:
        token = new_tokenizer.convert_ids_to_tokens(t)
        pieces = [p.id for p in model.tokenize(token)]
        if not pieces or unk in pieces:
            raise ValueError(f"the old tokenizer cannot spell new token {token!r} without <unk>")
        out.append(pieces)
    return out


def _mean_rows(weight: torch.Tensor, pieces: list[list[int]]) -> torch.Tensor:
    k = max(len(p) for p in pieces)
    idx = torch.zeros((len(pieces), k), dtype=torch.long)
    mask = torch.zeros((len(pieces), k), dtype=weight.dtype)
    for i, p in enumerate(pieces):
        idx[i, : len(p)] = torch.tensor(p)
        mask[i, : len(p)] = 1.0
    idx, mask = idx.to(weight.device), mask.to(weight.device)
    rows = weight[idx]  # (n_new, k, d) or (n_new, k) for a bias
    m = mask.view(*mask.shape, *([1] * (rows.ndim - 2)))
    return (rows * m).sum(1) / m.sum(1)


def _fill(param: torch.Tensor, n_old: int, method: str, pieces: list[list[int]], noise: torch.Tensor) -> None:
    old = param[:n_old]
    if method == "mean_subword":
        param[n_old:] = _mean_rows(old, pieces)
    elif method == "mean_all":
        param[n_old:] = old.mean(0)
    else:
        param[n_old:] = noise.to(param.device, param.dtype).reshape(param[n_old:].shape)


def _check_ids(model: Any, old_tokenizer: Any, new_tokenizer: Any, new_ids: Any) -> tuple[int, int]:
    n_old, n_new = len(old_tokenizer), len(new_tokenizer)
    rows = model.get_input_embeddings().weight.shape[0]
    if rows != n_old:
        raise ValueError(f"the model has {rows} embedding rows but old_tokenizer has {n_old} tokens")
    if not isinstance(new_ids, range) and not all(isinstance(i, int) for i in new_ids):
        raise TypeError("new_ids must be a range or a sequence of ints")
    ids = list(new_ids)
    if not ids:
        raise ValueError("new_ids is empty: there are no new tokens to initialise")
    clash = [i for i in ids if i < n_old]
    if clash:
        raise ValueError(
            f"new_ids {clash[:5]} already exist in the vocabulary (ids < {n_old}, the old tokenizer's size)"
        )
    if ids != list(range(n_old, n_new)):
        raise ValueError(
            f"new_ids must be the contiguous ids {n_old}..{n_new - 1} appended to the vocabulary"
        )
    return n_old, n_new


@torch.no_grad()
def resize_and_init(
    model: Any,
    old_tokenizer: Any,
    new_tokenizer: Any,
    new_ids: range,
    *,
    method: str = "mean_subword",
    sigma: float = 0.02,
    seed: int = 0,
) -> Any:
    """Resize ``model`` to ``len(new_tokenizer)`` in place and initialise the rows of ``new_ids``.

    Args:
        model: a ``transformers`` causal LM whose input embedding has ``len(old_tokenizer)`` rows.
        new_ids: the appended ids (``Expansion.new_ids``); ids the old vocabulary already has are refused.
        method: one of :data:`INITS`. sigma: the ``"random"`` scale (> 0, HF's 0.02 by default).
        seed: seeds the ``"random"`` draw.

    Returns the model (resized in place).
    """
    check_choice(method, "method", INITS)
    check_positive(sigma, "sigma")
    seed = check_seed(seed)
    n_old, n_new = _check_ids(model, old_tokenizer, new_tokenizer, new_ids)
    pieces = piece_ids(old_tokenizer, new_tokenizer, new_ids) if method == "mean_subword" else []
    model.resize_token_embeddings(n_new, mean_resizing=False)
    gen = torch.Generator().manual_seed(seed)
    emb = model.get_input_embeddings().weight
    d = emb.shape[1]
    _fill(emb, n_old, method, pieces, torch.randn((n_new - n_old, d), generator=gen) * sigma)
    head = model.get_output_embeddings()
    if head is not None and head.weight is not emb:
        _fill(head.weight, n_old, method, pieces, torch.randn((n_new - n_old, d), generator=gen) * sigma)
    bias = getattr(head, "bias", None) if head is not None else None
    if bias is not None:
        _fill(bias, n_old, "mean_all" if method == "random" else method, pieces, torch.zeros(0))
    if not math.isfinite(float(emb.sum())):
        raise ValueError("the initialised embeddings are not finite")
    return model
