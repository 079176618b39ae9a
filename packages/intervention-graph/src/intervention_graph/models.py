"""The substrate: a tiny GPT-2 (spec: 4 layers, d 128, 4 heads, vocab 512) and its copy task.

Task ("copy the token after the marker"): a sequence of ``SEQ_LEN`` random content tokens (``CONTENT`` of
them) holds the ``MARKER`` at position 5 and ends with the marker again; the model must predict the token
that followed the first marker (``ANSWER_POSITION`` = 6). A clean/corrupt pair differs only in
that token, so activation patching has a real, localised effect: at the answer position in early layers,
at the final position in late layers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch
from paperkit import check_int, check_seed

if TYPE_CHECKING:
    import transformers

__all__ = ["MARKER", "SEQ_LEN", "VOCAB", "Pairs", "copy_pairs", "tiny_gpt2", "train_copy"]

SEQ_LEN, VOCAB, MARKER = 16, 512, 1
CONTENT = 64  # content tokens are 2 .. CONTENT + 1: a copy map the 300-step budget can learn (RESULTS.md)
ANSWER_POSITION = 6  # the marker sits at 5 (a fixed position: random ones need an induction circuit)


def tiny_gpt2(
    *, seed: int, device: str = "cpu", dtype: torch.dtype = torch.float32, n_layer: int = 4, n_embd: int = 128
) -> transformers.GPT2LMHeadModel:
    """GPT2Config(n_layer=4, n_embd=128, n_head=4, n_positions=64, vocab_size=512), seeded init, eval mode
    (``n_layer``/``n_embd`` smaller only for fast tests)."""
    check_seed(seed)
    check_int(n_layer, "n_layer", low=1)
    check_int(n_embd, "n_embd", low=4)
    import transformers  # here: importing its GPT-2 costs ~6 CPU-s, which only a model build should pay

    cfg = transformers.GPT2Config(
        n_layer=n_layer, n_embd=n_embd, n_head=4, n_positions=64, vocab_size=VOCAB, bos_token_id=0,
        eos_token_id=0, resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0,
    )  # fmt: skip
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = transformers.GPT2LMHeadModel(cfg)
    return model.to(device=device, dtype=dtype).eval()  # type: ignore[call-arg]


@dataclass(frozen=True)
class Pairs:
    """``clean``/``corrupt``: (n, SEQ_LEN) int64 token ids; ``answer``/``wrong``: (n,) the clean and corrupt
    answer tokens; ``position``: (n,) where they sit (the marker is one before)."""

    clean: torch.Tensor
    corrupt: torch.Tensor
    answer: torch.Tensor
    wrong: torch.Tensor
    position: torch.Tensor


def copy_pairs(n: int, *, seed: int, device: str = "cpu", fixed_position: int | None = None) -> Pairs:
    """``n`` clean/corrupt pairs of the copy task from an explicit generator."""
    check_int(n, "n", low=1)
    check_seed(seed)
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(2, CONTENT + 2, (n, SEQ_LEN), generator=g)
    p = torch.full((n,), ANSWER_POSITION - 1) if fixed_position is None else torch.full((n,), fixed_position)
    rows = torch.arange(n)
    ids[rows, p] = MARKER
    ids[:, -1] = MARKER
    answer = ids[rows, p + 1].clone()
    wrong = (answer - 2 + torch.randint(1, CONTENT, (n,), generator=g)) % CONTENT + 2  # != answer
    corrupt = ids.clone()
    corrupt[rows, p + 1] = wrong
    return Pairs(ids.to(device), corrupt.to(device), answer.to(device), wrong.to(device), (p + 1).to(device))


def train_copy(
    model: transformers.GPT2LMHeadModel, *, steps: int, seed: int, batch: int = 32, lr: float = 3e-3
) -> list[float]:
    """Train the final-position prediction of the copy task with AdamW; the loss per step. In place."""
    check_int(steps, "steps", low=0)
    device = str(next(model.parameters()).device)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.0)
    model.train()
    losses = []
    for step in range(steps):
        data = copy_pairs(batch, seed=seed * 100_003 + step, device=device)
        logits = model(data.clean).logits[:, -1]
        loss = torch.nn.functional.cross_entropy(logits, data.answer)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        losses.append(float(loss.detach()))
    model.eval()
    return losses
