"""Training and fine-tuning TinyMem models (AdamW + warm-up/cosine from ``paperkit.lm``)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import torch
from paperkit.lm import TrainConfig, optimizer_and_schedule
from paperkit.lm.training import decay_groups
from paperkit.validation import check_int, check_positive

from tinymem.metrics import token_losses
from tinymem.regularizers import (
    ExampleTiedDropout,
    LossTruncation,
    attach_example_tied,
    spectral_norm_penalty,
)


@dataclass(frozen=True)
class TrainSpec:
    """One optimisation run over (n, T) token rows.

    Attributes:
        epochs, batch_size, lr: passes over the data, rows a step, AdamW peak rate (spec: 1e-3, batch 128).
        weight_decay, warmup_frac, grad_clip: AdamW decay; share of steps warming up
            linearly; global norm clip.
        seed: the minibatch order.
        spectral_coef: weight of the spectral-norm penalty (0: off).
        loss_truncation: drop fraction of the highest-loss rows a batch (0: off).
        example_tied: example-tied dropout (None: off).
    """

    epochs: int
    batch_size: int = 128
    lr: float = 1e-3
    weight_decay: float = 0.01
    warmup_frac: float = 0.05
    grad_clip: float = 1.0
    seed: int = 0
    spectral_coef: float = 0.0
    loss_truncation: float = 0.0
    example_tied: ExampleTiedDropout | None = None

    def __post_init__(self) -> None:
        check_int(self.epochs, "epochs", low=1)
        check_int(self.batch_size, "batch_size", low=1)
        check_positive(self.lr, "lr")
        check_positive(self.spectral_coef, "spectral_coef", strict=False)
        LossTruncation(self.loss_truncation)  # validates


def train_lm(
    model: torch.nn.Module,
    seqs: torch.Tensor,
    spec: TrainSpec,
    *,
    device: str = "cpu",
    callback: Callable[[int, torch.nn.Module], None] | None = None,
    callback_every: int = 0,
) -> list[float]:
    """Train ``model`` in place on (n, T) rows with the causal-LM loss over every position (PAD included,
    as the official ``model(batch, labels=batch)``), plus the regularizers of ``spec``.

    ``callback(step, model)`` runs every ``callback_every`` steps (and after the last).
    Returns the step losses.
    """
    if seqs.ndim != 2 or len(seqs) == 0:
        raise ValueError(f"seqs must be a non-empty (n, T) tensor, got shape {tuple(seqs.shape)}")
    dev = torch.device(device)
    data = seqs.to(dev)
    n = len(data)
    steps_per_epoch = math.ceil(n / spec.batch_size)
    steps = spec.epochs * steps_per_epoch
    cfg = TrainConfig(
        steps=steps,
        batch_size=spec.batch_size,
        lr=spec.lr,
        weight_decay=spec.weight_decay,
        warmup_steps=min(steps, int(spec.warmup_frac * steps)),
        grad_clip=spec.grad_clip,
        seed=spec.seed,
    )
    params = [p for p in model.parameters() if p.requires_grad]
    opt, sched = optimizer_and_schedule(decay_groups(model, spec.weight_decay), cfg)
    trunc = LossTruncation(spec.loss_truncation)
    gen = torch.Generator().manual_seed(spec.seed)
    model.train()
    losses: list[float] = []
    step = 0
    for _ in range(spec.epochs):
        perm = torch.randperm(n, generator=gen)
        for s in range(0, n, spec.batch_size):
            idx = perm[s : s + spec.batch_size]
            handles = attach_example_tied(model, spec.example_tied, idx) if spec.example_tied else []
            try:
                per = token_losses(model, data[idx.to(dev)])
            finally:
                for h in handles:
                    h.remove()
            loss = trunc(per)
            if spec.spectral_coef > 0:
                loss = loss + spec.spectral_coef * spectral_norm_penalty(model, n_iter=5, seed=step)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, spec.grad_clip)
            opt.step()
            sched.step()
            losses.append(float(loss.detach()))
            step += 1
            if callback is not None and callback_every > 0 and (step % callback_every == 0 or step == steps):
                callback(step, model)
    model.eval()
    opt.zero_grad(set_to_none=True)
    return losses


def finetune(
    model: torch.nn.Module,
    seqs: torch.Tensor,
    *,
    epochs: int,
    lr: float = 1e-3,
    batch_size: int = 128,
    seed: int = 0,
    device: str = "cpu",
    callback: Callable[[int, torch.nn.Module], None] | None = None,
    callback_every: int = 0,
) -> list[float]:
    """Post-hoc fine-tuning on clean rows (seen clean data, extra unseen data, or both):
    plain causal-LM loss."""
    return train_lm(
        model,
        seqs,
        TrainSpec(epochs=epochs, lr=lr, batch_size=batch_size, seed=seed, warmup_frac=0.0),
        device=device,
        callback=callback,
        callback_every=callback_every,
    )
