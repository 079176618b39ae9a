"""Pre-training and continued pre-training of a causal LM on packed text, and the language mixture.

Documents are tokenised, wrapped as ``[bos] + tokens + [eos]`` and packed whole into padded rows of
``seq_len`` tokens; the loss is the mean next-token cross-entropy over every non-pad target. The
optimiser is Adam (``paperkit.optim.Adam``, bit for bit ``torch.optim.Adam``, no weight decay) with linear
warm-up and cosine decay (``paperkit.lm.lr_factor``), global-norm clipping at 1; minibatches of rows come
from successive random permutations (``paperkit.lm.index_batches``) of a CPU generator seeded by ``seed``.

Continued pre-training draws documents from a :class:`Mixture` of sources (spec step 4: B text, replayed
A text, parallel pairs) with fixed weights; ``replay_ratio`` is the share of A documents.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from paperkit.lm import TrainConfig, index_batches, lr_factor
from paperkit.optim import Adam
from paperkit.validation import check_int, check_number, check_positive, check_seed, check_strings

__all__ = ["Mixture", "adam_steps", "cpt_weights", "epochs", "pack", "train_lm"]


def pack(tokenizer: Any, texts: Sequence[str], seq_len: int) -> torch.Tensor:
    """``(n_rows, seq_len)`` int64 rows of whole ``[bos] + tokens + [eos]`` documents, packed greedily in
    order (a document that does not fit starts the next row) and padded with ``pad``; each row starts
    with a document's ``bos`` at position 0, as evaluation prompts do. Padding is not scored."""
    texts = check_strings(texts, "texts")
    check_int(seq_len, "seq_len", low=3)
    ids = tokenizer(list(texts), add_special_tokens=False)["input_ids"]
    bos, eos, pad = tokenizer.bos_token_id, tokenizer.eos_token_id, tokenizer.pad_token_id
    rows: list[list[int]] = [[]]
    for i, doc in enumerate(ids):
        item = [bos, *doc, eos]
        if len(item) > seq_len:
            raise ValueError(f"text {i} is {len(item)} tokens with bos/eos, longer than seq_len={seq_len}")
        if len(rows[-1]) + len(item) > seq_len:
            rows.append([])
        rows[-1].extend(item)
    if not rows[0]:
        raise ValueError("texts is empty: give at least one text")
    out = torch.full((len(rows), seq_len), pad, dtype=torch.long)
    for r, row in enumerate(rows):
        out[r, : len(row)] = torch.tensor(row)
    return out


def epochs(texts: Sequence[str], n_epochs: int, *, seed: int) -> list[str]:
    """``n_epochs`` passes over ``texts``, each in a fresh random order (so a packed row holds unrelated
    documents: in corpus order the paraphrases of one fact would share a row and the model could copy the
    value in context instead of memorising it)."""
    texts = check_strings(texts, "texts")
    check_int(n_epochs, "n_epochs", low=1)
    rng = np.random.default_rng(check_seed(seed))
    return [texts[i] for _ in range(n_epochs) for i in rng.permutation(len(texts))]


@dataclass(frozen=True)
class Mixture:
    """Documents drawn from named ``sources`` with ``weights`` (the same keys).

    Weights must be finite and >= 0 with a positive sum; weights that do not sum to 1 are normalised with
    a warning. A source with positive weight and no documents is an error.
    """

    sources: Mapping[str, Sequence[str]]
    weights: Mapping[str, float]

    def __post_init__(self) -> None:
        if not self.sources:
            raise ValueError("sources is empty: give at least one source")
        if set(self.sources) != set(self.weights):
            raise ValueError(
                f"weights keys {sorted(self.weights)} differ from sources {sorted(self.sources)}"
            )
        for k, w in self.weights.items():
            check_number(w, f"weights[{k!r}]", low=0.0)
            if w > 0 and not self.sources[k]:
                raise ValueError(f"source {k!r} is empty but has weight {w}")
        total = sum(self.weights.values())
        if total <= 0:
            raise ValueError("weights sum to 0: give at least one positive weight")
        if abs(total - 1.0) > 1e-9:
            warnings.warn(f"mixture weights sum to {total:g}; normalised to 1", stacklevel=3)
            object.__setattr__(self, "weights", {k: w / total for k, w in self.weights.items()})

    def sample(self, n_docs: int, *, seed: int) -> list[str]:
        """``n_docs`` documents: sources drawn i.i.d. by weight, documents uniformly within a source."""
        check_int(n_docs, "n_docs", low=1)
        rng = np.random.default_rng(check_seed(seed))
        names = [k for k in self.sources if self.weights[k] > 0]
        p = np.array([self.weights[k] for k in names])
        which = rng.choice(len(names), size=n_docs, p=p / p.sum())
        out: list[str] = []
        for i in which:
            docs = self.sources[names[i]]
            out.append(docs[int(rng.integers(len(docs)))])
        return out


def cpt_weights(replay_ratio: float, *, translation: bool = False) -> dict[str, float]:
    """Mixture weights of continued pre-training: ``{"A": r, "B": 1 - r}`` or, with translation data,
    ``{"A": r, "B": (1 - r)/2, "parallel": (1 - r)/2}`` (the B side shared with parallel pairs)."""
    r = check_number(replay_ratio, "replay_ratio", low=0.0, high=1.0)
    if translation:
        return {"A": r, "B": (1 - r) / 2, "parallel": (1 - r) / 2}
    return {"A": r, "B": 1 - r}


def train_lm(
    model: Any,
    rows: torch.Tensor,
    *,
    pad_id: int,
    steps: int,
    batch_size: int,
    lr: float,
    warmup: int = 0,
    seed: int = 0,
    device: str = "cpu",
    callback: Callable[[int], None] | None = None,
    every: int = 0,
) -> list[float]:
    """Train ``model`` in place on packed ``rows`` (``(n, T)`` int64); returns each step's loss (nats/token).

    ``callback(step)`` runs after steps ``every, 2 every, ...`` (``every = 0``: never).
    """
    if not isinstance(rows, torch.Tensor) or rows.ndim != 2 or len(rows) == 0:
        raise ValueError("rows must be a non-empty (n, T) int64 tensor (from pack)")
    check_int(steps, "steps", low=1)
    check_int(batch_size, "batch_size", low=1)
    check_positive(lr, "lr")
    warmup = min(check_int(warmup, "warmup", low=0), steps)
    cfg = TrainConfig(steps=steps, batch_size=batch_size, lr=lr, warmup_steps=warmup, seed=check_seed(seed))
    data = rows.to(device)
    pad = check_int(pad_id, "pad_id", low=0)
    batches = index_batches(len(data), batch_size, torch.Generator().manual_seed(seed))

    def loss_of(step: int) -> torch.Tensor:
        x = data[next(batches).to(data.device)]
        logits = model(input_ids=x).logits[:, :-1]
        target = x[:, 1:].masked_fill(x[:, 1:] == pad, -100)  # padding is not scored
        return torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), target.reshape(-1))

    def after(step: int) -> None:
        if callback is not None and every and step % every == 0:
            model.eval()
            callback(step)
            model.train()

    return adam_steps(
        model, loss_of, steps=steps, lr_at=lambda step: lr * max(lr_factor(step, cfg), 1e-8), after=after
    )


def adam_steps(
    model: Any,
    loss_of: Callable[[int], torch.Tensor],
    *,
    steps: int,
    lr_at: Callable[[int], float],
    after: Callable[[int], None] | None = None,
) -> list[float]:
    """``steps`` updates of ``model``'s trainable parameters in train mode: Adam (no weight decay) at
    ``lr_at(step)``, global-norm clipping at 1; returns each step's loss and leaves the model in eval mode.

    ``loss_of(step)`` gives the step's loss (it draws its own minibatch); ``after(step + 1)`` runs after
    each update. A non-finite loss raises FloatingPointError naming the step.
    """
    check_int(steps, "steps", low=1)
    params = [p for p in model.parameters() if p.requires_grad]
    opt = Adam(params, lr=lr_at(0))
    model.train()
    losses = []
    for step in range(steps):
        opt.lr = lr_at(step)
        loss = loss_of(step)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        value = float(loss.detach())
        if not math.isfinite(value):
            raise FloatingPointError(f"the loss became {value} at step {step}; lower lr")
        losses.append(value)
        if after is not None:
            after(step + 1)
    model.eval()
    return losses
