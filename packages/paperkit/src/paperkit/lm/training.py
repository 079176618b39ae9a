"""Supervised fine-tuning of a causal LM on prompt/response pairs: AdamW, warm-up + cosine, clipping."""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import torch
from transformers import PreTrainedTokenizerBase

from paperkit.lm.lean import check_lean_gpt2, response_nll
from paperkit.lm.models import check_device
from paperkit.lm.scoring import encode_prompt_response, sequence_logprobs
from paperkit.progress import track
from paperkit.validation import check_bool, check_choice, check_int


@dataclass(frozen=True)
class TrainConfig:
    """An optimisation run.

    Attributes:
        steps: optimiser steps (>= 1).
        batch_size: pairs a step (>= 1; may exceed the data set, which is then cycled).
        lr: peak learning rate of AdamW (> 0).
        weight_decay: AdamW's decoupled decay (>= 0); :func:`train_causal_lm` applies it to matrices and
            embeddings only, not to biases and norm gains.
        warmup_steps: steps of linear warm-up (0 <= warmup_steps <= steps).
        grad_clip: the largest global gradient L2 norm (> 0; ``math.inf`` turns clipping off).
        seed: seeds the minibatch order (>= 0).
        length_buckets: 1 (default) draws each minibatch at random; k > 1 draws k minibatches' worth of
            examples at a time, sorts them by length and cuts them into k minibatches of similar lengths
            (in random order), so less of each padded batch is padding (:func:`bucketed_batches`).
    """

    steps: int
    batch_size: int
    lr: float = 3e-4
    weight_decay: float = 0.01
    warmup_steps: int = 0
    grad_clip: float = 1.0
    seed: int = 0
    length_buckets: int = 1

    def __post_init__(self) -> None:
        for name in ("steps", "batch_size", "warmup_steps", "seed", "length_buckets"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise TypeError(f"TrainConfig.{name} must be an int, got {type(value).__name__}")
        for name in ("lr", "weight_decay", "grad_clip"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                raise TypeError(f"TrainConfig.{name} must be a number, got {type(value).__name__}")
        if self.steps < 1:
            raise ValueError(f"TrainConfig.steps must be >= 1, got {self.steps}")
        if self.batch_size < 1:
            raise ValueError(f"TrainConfig.batch_size must be >= 1, got {self.batch_size}")
        if not (math.isfinite(self.lr) and self.lr > 0):
            raise ValueError(f"TrainConfig.lr must be a positive finite number, got {self.lr}")
        if not (math.isfinite(self.weight_decay) and self.weight_decay >= 0):
            raise ValueError(f"TrainConfig.weight_decay must be >= 0, got {self.weight_decay}")
        if not 0 <= self.warmup_steps <= self.steps:
            raise ValueError(
                f"TrainConfig.warmup_steps must be in [0, steps={self.steps}], got {self.warmup_steps}"
            )
        if not self.grad_clip > 0:  # also rejects NaN
            raise ValueError(
                f"TrainConfig.grad_clip must be > 0 (math.inf: no clipping), got {self.grad_clip}"
            )
        if self.seed < 0:
            raise ValueError(f"TrainConfig.seed must be >= 0, got {self.seed}")
        if self.length_buckets < 1:
            raise ValueError(f"TrainConfig.length_buckets must be >= 1, got {self.length_buckets}")


def lr_factor(step: int, config: TrainConfig) -> float:
    """The learning-rate multiplier of optimiser step ``step`` (0-based).

    ``(step + 1) / warmup_steps`` during warm-up (so the first step already moves), then
    ``(1 + cos(π · (step - warmup_steps) / (steps - warmup_steps))) / 2``: 1 at the end of warm-up,
    falling to 0 at ``step == steps`` (one past the last step), so every step has a positive rate.
    """
    if step < config.warmup_steps:
        return (step + 1) / config.warmup_steps
    decay = config.steps - config.warmup_steps
    if decay == 0:
        return 0.0
    progress = min((step - config.warmup_steps) / decay, 1.0)
    return 0.5 * (1.0 + math.cos(math.pi * progress))


def optimizer_and_schedule(
    params: Iterable[torch.Tensor] | Iterable[dict[str, Any]], config: TrainConfig, *, fused: bool = False
) -> tuple[torch.optim.AdamW, torch.optim.lr_scheduler.LambdaLR]:
    """AdamW at ``config.lr`` with ``config.weight_decay`` and a LambdaLR following :func:`lr_factor`.

    ``params`` is what ``torch.optim.AdamW`` takes: tensors, or parameter groups (dicts) whose own
    ``weight_decay`` wins. ``fused``: torch's fused AdamW kernel (the same update, other float rounding).
    Call ``optimizer.step()`` then ``scheduler.step()`` once per step.
    """
    if not isinstance(config, TrainConfig):
        raise TypeError(f"config must be a TrainConfig, got {type(config).__name__}")
    check_bool(fused, "fused")
    # fused=None (not False) keeps torch's own default kernel choice, as before this option existed
    optimizer = torch.optim.AdamW(
        params, lr=config.lr, weight_decay=config.weight_decay, fused=True if fused else None
    )
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: lr_factor(step, config))
    return optimizer, scheduler


def decay_groups(model: torch.nn.Module, weight_decay: float) -> list[dict[str, Any]]:
    """Two AdamW groups: tensors of >= 2 dims (matrices, embeddings) decay; biases and norm gains do not."""
    params = [p for p in model.parameters() if p.requires_grad]
    decay = [p for p in params if p.ndim >= 2]
    keep = [p for p in params if p.ndim < 2]
    return [{"params": decay, "weight_decay": weight_decay}, {"params": keep, "weight_decay": 0.0}]


def index_batches(n: int, batch_size: int, generator: torch.Generator) -> Iterator[torch.Tensor]:
    """Endless minibatches of indices into ``n`` examples: (batch_size,) int64 CPU tensors.

    Each epoch is a fresh ``torch.randperm(n, generator=generator)``, so every example is seen once before
    any repeats; a batch may straddle two epochs.
    """
    if n < 1 or batch_size < 1:
        raise ValueError(f"n and batch_size must be >= 1, got n={n}, batch_size={batch_size}")

    def epochs() -> Iterator[int]:
        while True:
            yield from torch.randperm(n, generator=generator).tolist()

    stream = epochs()
    while True:
        yield torch.tensor([next(stream) for _ in range(batch_size)], dtype=torch.long)


def bucketed_batches(
    lengths: torch.Tensor, batch_size: int, buckets: int, generator: torch.Generator
) -> Iterator[torch.Tensor]:
    """Endless minibatches of similar lengths: ``buckets`` batches of :func:`index_batches` at a time,
    sorted by ``lengths`` (n,) and cut into ``buckets`` batches, yielded in a random order. Every example
    still comes once an epoch; ``buckets=1`` is :func:`index_batches` itself. The arguments are checked
    here, not at the first ``next``."""
    if not isinstance(lengths, torch.Tensor) or lengths.ndim != 1 or len(lengths) == 0:
        raise ValueError("lengths must be a non-empty 1-D tensor of example lengths")
    check_int(batch_size, "batch_size", low=1)
    check_int(buckets, "buckets", low=1)
    if not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator, got {type(generator).__name__}")
    return _bucketed(lengths, batch_size, buckets, generator)


def _bucketed(
    lengths: torch.Tensor, batch_size: int, buckets: int, generator: torch.Generator
) -> Iterator[torch.Tensor]:
    stream = index_batches(len(lengths), batch_size, generator)
    if buckets == 1:
        yield from stream
        return
    while True:
        pool = torch.cat([next(stream) for _ in range(buckets)])
        pool = pool[torch.argsort(lengths[pool], stable=True)]
        for j in torch.randperm(buckets, generator=generator).tolist():
            yield pool[j * batch_size : (j + 1) * batch_size]


def train_causal_lm(
    model: torch.nn.Module,
    tokenizer: PreTrainedTokenizerBase,
    prompts: Sequence[str],
    responses: Sequence[str],
    config: TrainConfig,
    *,
    max_length: int,
    device: str = "cpu",
    progress: bool = True,
    forward: str = "hf",
    drop_long: bool = False,
) -> list[float]:
    """Supervised fine-tuning: minimise the mean negative log-likelihood of the response tokens.

    Minibatches of ``config.batch_size`` pairs come from successive random permutations of the data,
    drawn with a CPU ``torch.Generator`` seeded with ``config.seed`` (grouped by length when
    ``config.length_buckets > 1``). The loss of a step is
    ``-sum(per_token) / n_response_tokens`` over the batch (response tokens and each final eos, as in
    :func:`sequence_logprobs`); then AdamW (:func:`decay_groups`), gradient clipping at
    ``config.grad_clip`` and the warm-up + cosine schedule. Same model, data and config => same losses.

    ``forward="hf"`` (default) calls the model as Hugging Face defines it. ``forward="lean"`` (GPT-2 only,
    no dropout: :func:`paperkit.lm.lean.check_lean_gpt2`) computes the same loss with
    :func:`paperkit.lm.lean.gpt2_response_nll` and steps with the fused AdamW kernel: the same objective
    and update up to float rounding, in fewer CPU-seconds on tiny models; its losses differ from
    ``"hf"``'s by rounding, which training amplifies, so the two give different (equally valid) models.

    The model is trained in place on ``device`` (where it must already be) and left in the train/eval mode
    it came in. Raises ValueError if a pair is longer than ``max_length`` tokens, unless ``drop_long``
    (then such pairs are left out, as :func:`paperkit.lm.encode_prompt_response` does).

    Returns:
        The loss of each step (nats per response token), ``config.steps`` floats.
    """
    if not isinstance(config, TrainConfig):
        raise TypeError(f"config must be a TrainConfig, got {type(config).__name__}")
    lean = check_choice(forward, "forward", ("hf", "lean")) == "lean"
    if lean:
        check_lean_gpt2(model)  # once: the batches below come from encode_prompt_response, right-padded
    dev = check_device(model, device)
    data = encode_prompt_response(
        tokenizer, prompts, responses, max_length=max_length, device=str(dev), drop_long=drop_long
    )
    lengths = data["attention_mask"].sum(-1).cpu()
    optimizer, scheduler = optimizer_and_schedule(
        decay_groups(model, config.weight_decay), config, fused=lean
    )
    generator = torch.Generator().manual_seed(config.seed)
    batches = bucketed_batches(lengths, config.batch_size, config.length_buckets, generator)
    was_training = model.training
    model.train()
    losses: list[float] = []
    try:
        for _ in track(range(config.steps), desc="sft", enabled=None if progress else False):
            idx = next(batches)
            width = int(lengths[idx].max())
            batch = {k: v[idx.to(dev), :width] for k, v in data.items()}
            if lean:
                loss = response_nll(model, batch["input_ids"], batch["response_mask"])
            else:
                _, per_token = sequence_logprobs(model, batch)
                loss = -per_token.sum() / batch["response_mask"].sum()
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), config.grad_clip)
            optimizer.step()
            scheduler.step()
            losses.append(float(loss.detach()))
    finally:
        model.train(was_training)
        optimizer.zero_grad(set_to_none=True)
    return losses
