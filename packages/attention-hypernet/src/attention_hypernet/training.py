"""Training and evaluation on the two tasks, with the official optimiser (``run.py``).

AdamW (betas 0.9/0.999, eps 1e-8: optax defaults) with ``optax.warmup_cosine_decay_schedule(init 0,
peak lr, warmup_steps, decay_steps = steps - warmup_steps, end 0.1 lr)``: linear warmup, then a cosine
that reaches 0.1 lr at step ``steps - warmup`` and stays there. Weight decay is masked off every
parameter that is 1-D in the Flax model (LayerNorm scales/biases, the MLP and output biases); the
per-head q/k/v biases are 2-D ``(H, d/H)`` in Flax and so are decayed, as here. Problems are drawn
fresh every step (the official loaders draw ``num_train`` fresh problems), from ``seed``: the same seed
gives every mixer the same problems in the same order.

Losses (official ``hyla/loss.py``): fuzzy logic, squared error of the last token's read-out;
sraven, mean softmax cross-entropy over the last ``F`` tokens' logits.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import torch
from paperkit import check_choice, check_instance, check_int, check_number, check_positive, check_seed

from attention_hypernet._checks import check_device, check_tensor
from attention_hypernet.logic import FuzzyLogic, LogicBatch
from attention_hypernet.sraven import SRaven, SRavenBatch
from attention_hypernet.stacked import StackedTransformer
from attention_hypernet.transformer import Transformer

__all__ = [
    "AdamW",
    "TrainConfig",
    "build_model",
    "decay_mask",
    "evaluate",
    "lr_at",
    "task_loss",
    "train",
    "train_stacked",
]

Task = FuzzyLogic | SRaven


@dataclass(frozen=True)
class TrainConfig:
    """Model widths and optimiser; defaults are the official fuzzy-logic config (``configs/logic.py``)."""

    d_model: int = 128
    n_layers: int = 2
    n_heads: int = 8
    d_qk: int = 16
    d_v: int = 16
    d_mlp: int = 256
    steps: int = 50_000
    batch_size: int = 128
    lr: float = 1e-3
    warmup: int = 100
    weight_decay: float = 0.1

    def __post_init__(self) -> None:
        for name in ("d_model", "n_layers", "n_heads", "d_qk", "d_v", "d_mlp", "steps", "batch_size"):
            check_int(getattr(self, name), name, low=1)
        check_int(self.warmup, "warmup", low=0)
        for name in ("d_qk", "d_v"):
            if getattr(self, name) % self.n_heads:
                raise ValueError(
                    f"{name} must be divisible by n_heads = {self.n_heads}, got {getattr(self, name)}"
                )
        if 2 * self.warmup >= self.steps:
            raise ValueError(f"warmup must be below steps / 2 = {self.steps / 2}, got {self.warmup}")
        check_positive(self.lr, "lr")
        check_number(self.weight_decay, "weight_decay", low=0.0)


def lr_at(step: int, *, lr: float, warmup: int, steps: int) -> float:
    """The official schedule's learning rate at ``step`` (0-based)."""
    step, steps = check_int(step, "step", low=0), check_int(steps, "steps", low=1)
    warmup, lr = check_int(warmup, "warmup", low=0), check_positive(lr, "lr")
    if 2 * warmup >= steps:
        raise ValueError(f"warmup must be below steps / 2 = {steps / 2}, got {warmup}")
    if step < warmup:
        return lr * step / warmup
    decay = steps - 2 * warmup  # optax decay_steps = steps - warmup counts the warmup too
    t = min(step - warmup, decay) / max(decay, 1)
    return 0.1 * lr + 0.9 * lr * 0.5 * (1 + math.cos(math.pi * t))


def build_model(
    task: Task, config: TrainConfig, mixer: str, *, seed: int, device: str = "cpu"
) -> Transformer:
    """The official model for ``task``: logic reads one number, sraven ``V`` logits per token."""
    _check_task_config(task, config)
    check_device(device)
    if isinstance(task, FuzzyLogic):
        # run.py's setup() overrides configs/logic.py's 128 with the sequence length, for both tasks
        in_dim, out_dim, rel = task.num_vars + 1, 1, task.seq_len
    else:
        in_dim, out_dim, rel = task.num_values, task.num_values, task.seq_len
    return Transformer(
        in_dim,
        out_dim,
        d_model=config.d_model,
        n_layers=config.n_layers,
        n_heads=config.n_heads,
        d_qk=config.d_qk,
        d_v=config.d_v,
        d_mlp=config.d_mlp,
        mixer=mixer,
        rel_pos_max_dist=rel,
        seed=seed,
        device=device,
    )


def _check_task_config(task: object, config: object) -> None:
    check_instance(task, "task", (FuzzyLogic, SRaven))
    check_instance(config, "config", TrainConfig)


def _to(batch: LogicBatch | SRavenBatch, device: str) -> tuple[torch.Tensor, torch.Tensor]:
    return torch.from_numpy(batch.x).to(device), torch.from_numpy(np.asarray(batch.y)).to(device)


def task_loss(task: Task, logits: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """The official loss of ``task`` on the model's output ``logits (B, T, out)``."""
    check_instance(task, "task", (FuzzyLogic, SRaven))
    B, T, _ = check_tensor(logits, "logits", ndim=3, finite=False).shape
    F = 1 if isinstance(task, FuzzyLogic) else task.num_features
    want = (B,) if isinstance(task, FuzzyLogic) else (B, F)
    check_tensor(y, "y", shape=want, kind="f" if isinstance(task, FuzzyLogic) else "iu")
    if T < F:
        raise ValueError(f"logits must have at least {F} tokens, got shape {tuple(logits.shape)}")
    if isinstance(task, FuzzyLogic):
        return (logits[:, -1, 0] - y).pow(2).mean()
    F = task.num_features
    return torch.nn.functional.cross_entropy(logits[:, -F:].reshape(-1, logits.shape[-1]), y.reshape(-1))


def decay_mask(model: Transformer) -> list[bool]:
    """Which parameters (in ``model.parameters()`` order) get weight decay: those that are not 1-D in Flax."""
    return [
        p.ndim != 1 or name.endswith(("query.bias", "key.bias", "value.bias"))
        for name, p in model.named_parameters()
    ]


class AdamW:
    """AdamW with decoupled weight decay, the update of ``optax.adamw`` and ``torch.optim.AdamW``:

        m <- b1 m + (1 - b1) g,  v <- b2 v + (1 - b2) g^2,
        p <- p - lr (m / (1 - b1^t) / (sqrt(v / (1 - b2^t)) + eps) + wd_i p).

    Written out because constructing any ``torch.optim`` optimiser imports ``torch._dynamo`` (seconds of
    CPU on the shared machine, more than a smoke run); tests compare it with ``torch.optim.AdamW``.
    """

    def __init__(
        self,
        params: list[torch.Tensor],
        decay: list[bool],
        *,
        weight_decay: float,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
    ) -> None:
        self.params, self.betas, self.eps, self.t = params, betas, eps, 0
        self.weight_decay = weight_decay
        self.decayed = [p for p, d in zip(params, decay, strict=True) if d]
        self.m = [torch.zeros_like(p) for p in params]
        self.v = [torch.zeros_like(p) for p in params]

    @torch.no_grad()
    def step(self, lr: float) -> None:
        self.t += 1
        b1, b2 = self.betas
        grads = [p.grad if p.grad is not None else torch.zeros_like(p) for p in self.params]
        torch._foreach_lerp_(self.m, grads, 1 - b1)
        torch._foreach_mul_(self.v, b2)
        torch._foreach_addcmul_(self.v, grads, grads, 1 - b2)
        if self.decayed and self.weight_decay:
            torch._foreach_mul_(self.decayed, 1 - lr * self.weight_decay)
        denom = torch._foreach_sqrt(self.v)
        torch._foreach_div_(denom, (1 - b2**self.t) ** 0.5)
        torch._foreach_add_(denom, self.eps)
        torch._foreach_addcdiv_(self.params, self.m, denom, -lr / (1 - b1**self.t))

    def zero_grad(self) -> None:
        for p in self.params:
            p.grad = None


def _check_model_task(model: object, task: object) -> None:
    check_instance(model, "model", Transformer)
    check_instance(task, "task", (FuzzyLogic, SRaven))
    assert isinstance(model, Transformer)
    need = (
        task.num_vars + 1
        if isinstance(task, FuzzyLogic)
        else task.num_values
        if isinstance(task, SRaven)
        else 0
    )
    if model.embed.in_features != need:
        raise ValueError(f"model reads {model.embed.in_features} inputs per token, task needs {need}")


def _check_model_device(model: Transformer, device: object) -> None:
    """``device`` must parse and hold the model's parameters (else the first batch fails deep inside)."""
    want = check_device(device)
    have = next(model.parameters()).device
    if have.type != want.type or (want.index is not None and have.index != want.index):
        raise ValueError(f"device must be the model's device {have}, got {device!r}")


def _batches(task: Task, n: int, split: str, rng: np.random.Generator) -> Iterator[LogicBatch | SRavenBatch]:
    while True:
        yield task.sample(n, split, rng)


def train(
    model: Transformer, task: Task, config: TrainConfig, *, seed: int, device: str = "cpu"
) -> np.ndarray:
    """Train ``model`` in place for ``config.steps`` steps; returns the ``(steps,)`` training losses."""
    _check_model_task(model, task)
    check_instance(config, "config", TrainConfig)
    seed = check_seed(seed)
    _check_model_device(model, device)
    rng = np.random.default_rng([seed, 1])
    opt = AdamW(list(model.parameters()), decay_mask(model), weight_decay=config.weight_decay)
    losses = torch.empty(config.steps, device=device)
    model.train()
    for step, batch in zip(
        range(config.steps), _batches(task, config.batch_size, "train", rng), strict=False
    ):
        x, y = _to(batch, device)
        loss = task_loss(task, model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step(lr_at(step, lr=config.lr, warmup=config.warmup, steps=config.steps))
        losses[step] = loss.detach()
    return losses.cpu().numpy()


def _stacked_loss(task: Task, out: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Per-model losses ``(M,)`` of ``task_loss`` on ``out (M, B, T, o)`` and targets ``y (M, B[, F])``."""
    if isinstance(task, FuzzyLogic):
        return (out[:, :, -1, 0] - y).pow(2).mean(1)
    F, M = task.num_features, out.shape[0]
    ce = torch.nn.functional.cross_entropy(
        out[:, :, -F:].reshape(-1, out.shape[-1]), y.reshape(-1), reduction="none"
    )
    return ce.reshape(M, -1).mean(1)


def train_stacked(
    models: list[Transformer],
    tasks: list[Task],
    config: TrainConfig,
    *,
    seeds: list[int],
    device: str = "cpu",
) -> np.ndarray:
    """Train every ``models[i]`` on ``tasks[i]`` from ``seeds[i]`` as :func:`train` would, all at once.

    The models are stacked (:class:`StackedTransformer`) and trained in one loop; model ``i`` sees the
    problems ``train(models[i], tasks[i], config, seed=seeds[i])`` sees (one generator per distinct
    ``(task, seed)``, drawn in the same order) and gets the same updates up to float rounding. The
    trained parameters are written back into ``models``. Returns the ``(M, steps)`` training losses.
    """
    check_instance(config, "config", TrainConfig)
    for name, seq in (("models", models), ("tasks", tasks), ("seeds", seeds)):
        if not isinstance(seq, (list, tuple)) or len(seq) == 0:
            raise ValueError(f"{name} must be a non-empty list, got {seq!r}")
    if not len(models) == len(tasks) == len(seeds):
        raise ValueError(
            f"models, tasks and seeds must have one length, got {len(models)}, {len(tasks)}, {len(seeds)}"
        )
    for i, (m, t) in enumerate(zip(models, tasks, strict=True)):
        _check_model_task(m, t)
        _check_model_device(m, device)
        t0 = tasks[0]
        if type(t) is not type(t0) or (
            isinstance(t, SRaven) and isinstance(t0, SRaven) and t.num_features != t0.num_features
        ):
            raise ValueError(f"tasks[{i}] must be of the kind and size of tasks[0], got {t!r}")
    seeds = [check_seed(s) for s in seeds]
    keys = list(dict.fromkeys(zip(tasks, seeds, strict=True)))  # distinct (task, seed), first-seen order
    streams = [_batches(t, config.batch_size, "train", np.random.default_rng([s, 1])) for t, s in keys]
    pick = torch.tensor([keys.index(k) for k in zip(tasks, seeds, strict=True)], device=device)
    stacked = StackedTransformer(models)
    opt = AdamW(list(stacked.parameters()), decay_mask(models[0]), weight_decay=config.weight_decay)
    losses = torch.empty(config.steps, len(models), device=device)
    for step in range(config.steps):
        pairs = [_to(next(stream), device) for stream in streams]
        x = torch.stack([p[0] for p in pairs])[pick]
        y = torch.stack([p[1] for p in pairs])[pick]
        loss = _stacked_loss(tasks[0], stacked(x), y)
        opt.zero_grad()
        loss.sum().backward()  # the models share no parameter: each gets its own loss's gradient
        opt.step(lr_at(step, lr=config.lr, warmup=config.warmup, steps=config.steps))
        losses[step] = loss.detach()
    stacked.unstack_into(models)
    return losses.T.cpu().numpy()


@torch.no_grad()
def evaluate(
    model: Transformer, task: Task, split: str, *, n: int, seed: int, device: str = "cpu", chunk: int = 1024
) -> dict[str, float]:
    """Metrics on ``n`` fresh problems of ``split`` drawn from ``seed``.

    Logic: ``r2`` (official: mean over sequences of 1 - squared error / var(y)) and ``mse``. sraven:
    ``acc`` (all F features right, the official metric) and ``acc_per_feature``.
    """
    _check_model_task(model, task)
    check_choice(split, "split", ("train", "test", "ood"))
    n, seed, chunk = check_int(n, "n", low=1), check_seed(seed), check_int(chunk, "chunk", low=1)
    _check_model_device(model, device)
    rng = np.random.default_rng([seed, 2])
    model.eval()
    sums: dict[str, float] = {}
    for start in range(0, n, chunk):
        batch = task.sample(min(chunk, n - start), split, rng)
        x, y = _to(batch, device)
        out = model(x)
        if isinstance(batch, LogicBatch):
            err = (out[:, -1, 0] - y).pow(2).cpu().numpy().astype(float)
            parts = {"r2": 1 - err / batch.base_mse, "mse": err}
        else:
            right = (out[:, -y.shape[-1] :].argmax(-1) == y).cpu().numpy()
            parts = {"acc": right.all(-1).astype(float), "acc_per_feature": right.mean(-1)}
        for k, v in parts.items():
            sums[k] = sums.get(k, 0.0) + float(v.sum())
    model.train()
    return {k: v / n for k, v in sums.items()}
