"""The tiny LM agent's substrate: a word-level tokenizer, a 2-layer GPT-2 and its synthetic pre-training.

Pre-training corpus (spec, "Small-scale reproduction"): prompts over all matrix games, random states and
random *ordered pairs* of action tokens drawn from ``PRETRAIN_TOKENS`` (which token plays C is random), so
that the payoff table, not the token's identity, carries the meaning; the answer is one of the two listed
tokens uniformly, replaced by a uniformly random vocabulary word with probability ``p_noise`` = 0.1 (a
base model with a non-trivial illegal-answer rate, like the base LLM). The loss is the next-token NLL of
the answer (and the closing eos) given the prompt (``paperkit.lm.train_causal_lm``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from paperkit import check_int, check_probability, check_seed

from moral_rewards.games import GAMES, PAYOFFS
from moral_rewards.prompts import build_prompt

__all__ = [
    "ACTION_TOKENS",
    "PRETRAIN_TOKENS",
    "PretrainConfig",
    "build_tiny_lm",
    "build_tokenizer",
    "pretrain",
    "pretraining_corpus",
]

ACTION_TOKENS = tuple(f"action{i}" for i in range(1, 9))
PRETRAIN_TOKENS = ACTION_TOKENS  # action1/2: fine-tuning; action3/4: held out from fine-tuning (claim 7)
PRETRAIN_GAMES = tuple(g for g in GAMES)
PRETRAIN_VARIANTS = ("structured", "reversed")  # same length: batches without padding


def _vocabulary() -> list[str]:
    """Every word of every prompt variant (specials excluded), in a fixed order."""
    rng = np.random.default_rng(0)
    words: set[str] = {str(i) for i in range(10)} | set(ACTION_TOKENS)
    for g in GAMES:
        for variant in ("structured", "reversed", "unstructured"):
            for own in (0, 1):
                for opp in (0, 1):
                    words.update(
                        build_prompt(
                            g, own, opp, tokens=ACTION_TOKENS[:2], order_rng=rng, variant=variant
                        ).split()
                    )
    return sorted(words)


def build_tokenizer() -> Any:  # a transformers.PreTrainedTokenizerFast
    """Word-level tokenizer over the prompt words, digits 0-9 and ``action1..action8`` (one token each).

    ``paperkit.lm.word_tokenizer(..., whitespace_tokens=False)``: specials ``<pad>`` 0, ``<bos>`` 1,
    ``<eos>`` 2, ``<unk>`` 3; words split on whitespace (dropped); an unknown word is ``<unk>``; ``decode``
    joins tokens with single spaces.
    """
    from paperkit.lm import word_tokenizer

    return word_tokenizer(_vocabulary(), whitespace_tokens=False)


def build_tiny_lm(
    tokenizer: Any,
    *,
    n_layer: int = 2,
    n_head: int = 4,
    d_model: int = 128,
    seed: int = 0,
    device: str = "cpu",
) -> Any:
    """Spec: ``GPT2Config(n_layer=2, n_head=4, n_embd=128, n_positions=256)``, from config (no weights)."""
    from paperkit.lm import tiny_causal_lm

    return tiny_causal_lm(
        tokenizer,
        arch="gpt2",
        n_layer=n_layer,
        n_head=n_head,
        d_model=d_model,
        max_positions=256,
        seed=seed,
        device=device,
    )


def pretraining_corpus(
    n: int, rng: np.random.Generator, *, p_noise: float = 0.1, noise_words: tuple[str, ...] | None = None
) -> tuple[list[str], list[str]]:
    """``n`` (prompt, answer) pairs; answers are a listed token, or (prob. ``p_noise``) a random word."""
    check_int(n, "n", low=1)
    check_probability(p_noise, "p_noise")
    noise = noise_words if noise_words is not None else tuple(_vocabulary())
    prompts, answers = [], []
    for _ in range(n):
        pair = rng.choice(len(PRETRAIN_TOKENS), size=2, replace=False)
        tokens = (PRETRAIN_TOKENS[pair[0]], PRETRAIN_TOKENS[pair[1]])
        game = PRETRAIN_GAMES[rng.integers(len(PRETRAIN_GAMES))]
        variant = PRETRAIN_VARIANTS[rng.integers(len(PRETRAIN_VARIANTS))]
        own, opp = (int(x) for x in rng.integers(0, 2, size=2))
        prompts.append(build_prompt(PAYOFFS[game], own, opp, tokens=tokens, order_rng=rng, variant=variant))
        if rng.random() < p_noise:
            answers.append(str(noise[rng.integers(len(noise))]))
        else:
            answers.append(tokens[rng.integers(2)])
    return prompts, answers


@dataclass(frozen=True)
class PretrainConfig:
    """Synthetic pre-training of the tiny LM. ``steps * batch_size`` sequences are seen."""

    n_prompts: int = 20_000  # spec: ~20k synthetic prompts
    steps: int = 600
    batch_size: int = 32
    lr: float = 2e-3  # ours: the quick pilot at 1e-3 left a 38% illegal rate after 100 steps (RESULTS.md)
    p_noise: float = 0.1  # spec: 10% of answers a random vocabulary token
    warmup_steps: int = 30

    def __post_init__(self) -> None:
        check_int(self.n_prompts, "n_prompts", low=1)
        check_int(self.steps, "steps", low=1)
        check_int(self.batch_size, "batch_size", low=1)
        check_probability(self.p_noise, "p_noise")
        check_int(self.warmup_steps, "warmup_steps", low=0, high=self.steps)


def pretrain(
    model: Any, tokenizer: Any, config: PretrainConfig, *, seed: int = 0, device: str = "cpu"
) -> list[float]:
    """Train ``model`` in place on the synthetic corpus drawn with ``seed``; returns the per-step losses."""
    from paperkit.lm import TrainConfig, train_causal_lm

    rng = np.random.default_rng(check_seed(seed))
    prompts, answers = pretraining_corpus(config.n_prompts, rng, p_noise=config.p_noise)
    tc = TrainConfig(
        steps=config.steps,
        batch_size=config.batch_size,
        lr=config.lr,
        warmup_steps=config.warmup_steps,
        seed=seed,
    )
    return train_causal_lm(
        model,
        tokenizer,
        prompts,
        [" " + a for a in answers],
        tc,
        max_length=256,
        device=device,
        progress=False,
    )
