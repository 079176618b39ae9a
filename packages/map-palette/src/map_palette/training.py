"""The tiny reference LM p0 (spec data B): a GPT-2 config trained in-process on the toy review grammar.

A byte-level BPE tokenizer (paperkit.lm) is trained on the corpus, so that the grammar's words are
single tokens; the model is paperkit.lm's ``tiny_causal_lm`` (GPT-2, 2 layers, d_model 128 in the spec)
trained by ``train_causal_lm`` (SFT on the continuation given the prompt).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from paperkit import check_instance, check_int, check_positive, check_seed

from map_palette.data import review_corpus

__all__ = ["LMConfig", "train_review_lm"]


@dataclass(frozen=True)
class LMConfig:
    """The reference LM and its training budget."""

    n_reviews: int = 4000
    vocab_size: int = 160
    n_layer: int = 2  # spec data B
    n_head: int = 4
    d_model: int = 128  # spec data B: n_embd 128
    steps: int = 300
    batch_size: int = 32
    lr: float = 3e-3
    warmup_steps: int = 20
    max_length: int = 48

    def __post_init__(self) -> None:
        for name in (
            "n_reviews",
            "vocab_size",
            "n_layer",
            "n_head",
            "d_model",
            "steps",
            "batch_size",
            "max_length",
        ):
            check_int(getattr(self, name), name, low=1)
        check_int(self.warmup_steps, "warmup_steps", low=0)
        check_positive(self.lr, "lr")
        if self.d_model % self.n_head:
            raise ValueError(
                f"d_model must be a multiple of n_head, got d_model {self.d_model}, n_head {self.n_head}"
            )


def train_review_lm(config: LMConfig, *, seed: int, device: str = "cpu") -> tuple[Any, Any, list[float]]:
    """(model, tokenizer, per-step losses) of the reference LM trained from ``seed``."""
    check_instance(config, "config", LMConfig)
    seed = check_seed(seed)
    from paperkit.lm import TrainConfig, tiny_causal_lm, train_bpe_tokenizer, train_causal_lm  # torch: lazily
    from paperkit.lm.models import available_device

    device = str(available_device(device))
    corpus = review_corpus(config.n_reviews, seed=seed)
    prompts = [r.prompt for r in corpus]
    conts = [r.continuation for r in corpus]
    tok = train_bpe_tokenizer([p + c for p, c in zip(prompts, conts, strict=True)], config.vocab_size)
    model = tiny_causal_lm(
        tok,
        n_layer=config.n_layer,
        n_head=config.n_head,
        d_model=config.d_model,
        max_positions=config.max_length + 32,
        seed=seed,
        device=device,
    )
    tc = TrainConfig(
        steps=config.steps,
        batch_size=config.batch_size,
        lr=config.lr,
        warmup_steps=min(config.warmup_steps, config.steps),
        seed=seed,
    )
    losses = train_causal_lm(
        model, tok, prompts, conts, tc, max_length=config.max_length, device=device, progress=False
    )
    return model, tok, losses
