"""The paper's 17 mitigation methods behind one signature (plus BalancedSubnet under the older official loss,
``balanced_subnet_label``), their hyper-parameter grids, and the selection rule."""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from tinymem.data import TinyMemData
from tinymem.models import build_model
from tinymem.regularizers import ExampleTiedDropout, finalize_example_tied
from tinymem.training import TrainSpec, finetune, train_lm
from tinymem.unlearn import (
    ablate_neurons,
    activation_scores,
    balanced_subnet,
    durable,
    durable_aggregate,
    greedy,
    hard_concrete_scores,
    integrated_gradients_scores,
    second_order,
    slimming_scores,
    subnet,
    zero_out_scores,
)


@dataclass(frozen=True)
class MitigationContext:
    """Everything a mitigation needs.

    Attributes:
        data: the TinyMem data set; base_model: the trained, unmitigated model (never modified).
        mem: (n_mem, T) the noised sequences the base model regurgitates (the unlearning "memorised set").
        clean: (n_clean, T) clean training rows of all five distributions (the unlearning "extra data").
        train_spec: how the base model was trained (the regularizers retrain with it).
        model_config: the base model's GPT2Config; seed, device: as everywhere.
        unlearn_epochs: epochs of Subnet / BalancedSubnet (paper 5).
        slim_epochs: optimisation steps of Slimming / Hard Concrete.
    """

    data: TinyMemData
    base_model: torch.nn.Module
    mem: torch.Tensor
    clean: torch.Tensor
    train_spec: TrainSpec
    model_config: Any
    seed: int = 0
    device: str = "cpu"
    unlearn_epochs: int = 5
    slim_epochs: int = 200

    @property
    def prompt_len(self) -> int:
        return self.data.config.prompt_len

    @property
    def window(self) -> int:
        return self.data.config.window


MethodFn = Callable[[MitigationContext, float], torch.nn.Module]
ScoreFn = Callable[[MitigationContext], list[torch.Tensor]]  # a neuron method's scores, one tensor a layer


@dataclass(frozen=True)
class Method:
    """One mitigation: ``fn(ctx, value)`` returns a new model; ``param`` names the swept hyper-parameter."""

    name: str
    family: str  # "regularizer" | "fine-tuning" | "unlearning (neuron)" | "unlearning (weight)"
    param: str
    grid: tuple[float, ...]
    fn: MethodFn
    paper_hp: str
    #: neuron-level methods declare their scoring step, so that a sweep scores once for every ratio and
    #: ablates with ``ablate_neurons(base, scores(ctx), ratio)`` (what ``fn`` does for one ratio)
    scores: ScoreFn | None = None


def _retrain(ctx: MitigationContext, **changes: Any) -> torch.nn.Module:
    model = build_model(ctx.model_config, seed=ctx.seed, device=ctx.device)
    spec = TrainSpec(**{**ctx.train_spec.__dict__, **changes})
    train_lm(model, ctx.data.train, spec, device=ctx.device)
    if spec.example_tied is not None:
        finalize_example_tied(model, spec.example_tied)
    return model


def _ft(ctx: MitigationContext, name: str, epochs: float) -> torch.nn.Module:
    model = copy.deepcopy(ctx.base_model)
    finetune(
        model,
        finetune_rows(ctx.data, name),
        epochs=int(epochs),
        lr=ctx.train_spec.lr,
        batch_size=ctx.train_spec.batch_size,
        seed=ctx.seed,
        device=ctx.device,
    )
    return model


def _neuron(score_fn: ScoreFn) -> MethodFn:
    """ablate_neurons(base, score_fn(ctx), ratio) (the base model itself when nothing is memorised)."""

    def fn(ctx: MitigationContext, ratio: float) -> torch.nn.Module:
        if len(ctx.mem) == 0:
            return copy.deepcopy(ctx.base_model)
        return ablate_neurons(ctx.base_model, score_fn(ctx), ratio)

    return fn


def finetune_rows(data: TinyMemData, name: str) -> torch.Tensor:
    """The clean rows a fine-tuning method trains on: seen clean data, extra unseen data, or both."""
    if name == "ft_both":
        return torch.cat([data.clean_train, data.ft_extra])
    return {"ft_clean": data.clean_train, "ft_extra": data.ft_extra}[name]


RATIOS = (0.005, 0.01, 0.05)  # the spec's grid for every ratio-swept unlearning method (Greedy excepted)


def _finetuning(name: str, paper_hp: str) -> Method:
    """Fine-tuning the base model on :func:`finetune_rows` ``name`` for 1, 2 or 4 epochs."""
    return Method(name, "fine-tuning", "epochs", (1, 2, 4), lambda c, v: _ft(c, name, v), paper_hp)


def _unlearn(name: str, level: str, fn: MethodFn, paper_hp: str) -> Method:
    """A weight-level unlearning method swept over :data:`RATIOS` (``level`` "weight")."""
    return Method(name, f"unlearning ({level})", "ratio", RATIOS, fn, paper_hp)


def _unlearn_neurons(name: str, score_fn: ScoreFn, paper_hp: str) -> Method:
    """A neuron-level unlearning method swept over :data:`RATIOS`, declaring its scoring step."""
    return Method(name, "unlearning (neuron)", "ratio", RATIOS, _neuron(score_fn), paper_hp, scores=score_fn)


METHODS: dict[str, Method] = {
    m.name: m
    for m in (
        Method(
            "spectral_norm",
            "regularizer",
            "coef",
            (1e-3, 1e-2, 1e-1),
            lambda c, v: _retrain(c, spectral_coef=v),
            "λ swept [grid ours]",
        ),
        Method(
            "loss_truncation",
            "regularizer",
            "drop_frac",
            (0.05, 0.1, 0.2),
            lambda c, v: _retrain(c, loss_truncation=v),
            "dropc swept [grid ours]",
        ),
        Method(
            "example_tied_dropout",
            "regularizer",
            "p_mem",
            (0.05, 0.1, 0.2),
            lambda c, v: _retrain(c, example_tied=ExampleTiedDropout(p_gen=0.4, p_mem=v, seed=c.seed)),
            "p_gen 0.4, p_mem swept (Maini et al. 2023) [unverified]",
        ),
        _finetuning("ft_clean", "clean (seen) data"),
        _finetuning("ft_extra", "extra (unseen) clean data"),
        _finetuning("ft_both", "seen + extra clean data"),
        _unlearn_neurons(
            "zero_out",
            (lambda c: zero_out_scores(c.base_model, c.mem, c.prompt_len, c.window)),
            "ratio swept",
        ),
        _unlearn_neurons(
            "act",
            (lambda c: activation_scores(c.base_model, c.mem, c.prompt_len)),
            "ratio swept",
        ),
        _unlearn_neurons(
            "slimming",
            (lambda c: slimming_scores(c.base_model, c.mem, c.prompt_len, c.window, epochs=c.slim_epochs)),
            "λ_L1 1000, stop loss 0.1, lr 1e-2",
        ),
        _unlearn_neurons(
            "hard_concrete",
            (
                lambda c: hard_concrete_scores(
                    c.base_model, c.mem, c.prompt_len, c.window, epochs=c.slim_epochs, seed=c.seed
                )
            ),
            "λ_L0 1000, stop loss 0.1, lr 1e-2",
        ),
        _unlearn_neurons(
            "integrated_gradients",
            (lambda c: integrated_gradients_scores(c.base_model, c.mem, c.prompt_len, c.window, steps=20)),
            "20 IG steps",
        ),
        Method(
            "greedy",
            "unlearning (weight)",
            "ratio",
            (1e-4, 5e-4, 1e-3),
            lambda c, v: greedy(c.base_model, c.mem, c.clean, v, seed=c.seed),
            "one weight a step, batch 64",
        ),
        _unlearn(
            "durable",
            "weight",
            lambda c, v: durable(c.base_model, c.mem, v),
            "layer-wise top |grad|",
        ),
        _unlearn(
            "durable_aggregate",
            "weight",
            lambda c, v: durable_aggregate(c.base_model, c.mem, v),
            "global top |grad|",
        ),
        _unlearn(
            "second_order",
            "weight",
            lambda c, v: second_order(c.base_model, c.mem, v),
            "512 grads, block 50, damp 1e-7",
        ),
        _unlearn(
            "subnet",
            "weight",
            lambda c, v: subnet(c.base_model, c.mem, v, epochs=c.unlearn_epochs, seed=c.seed),
            "SGD lr 0.1, mom 0.9, wd 5e-4, batch 64",
        ),
        _unlearn(
            "balanced_subnet",
            "weight",
            lambda c, v: balanced_subnet(
                c.base_model, c.mem, c.clean, v, alpha=0.05, epochs=c.unlearn_epochs, seed=c.seed
            ),
            "α 0.05, SGD lr 0.1, mom 0.9, wd 5e-4, batch 64",
        ),
        _unlearn(
            "balanced_subnet_label",
            "weight",
            lambda c, v: balanced_subnet(
                c.base_model, c.mem, c.clean, v, epochs=c.unlearn_epochs, seed=c.seed, loss_version="label"
            ),
            "older official loss mean(−B·label·L), SGD lr 0.1, mom 0.9, wd 5e-4, batch 64",
        ),
    )
}
UNLEARNING = tuple(n for n, m in METHODS.items() if m.family.startswith("unlearning"))


def select_best(rows: Sequence[Mapping[str, Any]], *, max_acc_drop: float = 5.0) -> Mapping[str, Any] | None:
    """The one selection rule for every method: lowest % memorised among the configurations whose clean
    accuracy drop (``acc_drop``, points) is ≤ ``max_acc_drop``; ties go to the smaller accuracy drop, then the
    earlier row. ``None`` when no configuration is within the budget."""
    ok = [
        r
        for r in rows
        if math.isfinite(r["acc_drop"]) and r["acc_drop"] <= max_acc_drop and math.isfinite(r["mem"])
    ]
    if not ok:
        return None
    return min(ok, key=lambda r: (r["mem"], r["acc_drop"]))
