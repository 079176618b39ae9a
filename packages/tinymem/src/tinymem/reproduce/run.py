"""Running the experiment: train a TinyMem model that memorises planted noised sequences, apply every
mitigation over its hyper-parameter grid, select each method's configuration with the one rule; every
part returns a typed record.

``run_cases(config, seed=..., device=...)`` returns :class:`Records`; ``run(config, seed=..., device=...)``
wraps them, with the claims and the tables, into a paperkit Report (``metrics`` is their JSON form).
"""

from __future__ import annotations

import copy
import dataclasses
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from paperkit import Report, torch_threads, track
from paperkit.validation import check_seed

from tinymem.data import TinyMemData, build_data
from tinymem.methods import METHODS, MitigationContext, finetune_rows, select_best
from tinymem.metrics import MemResult, next_token_scores, percent_memorized, token_accuracy
from tinymem.models import build_model, n_params, tinymem_config
from tinymem.reproduce.claims import claims
from tinymem.reproduce.config import Config, Setting
from tinymem.reproduce.tables import notes, tables
from tinymem.training import TrainSpec, finetune, train_lm
from tinymem.unlearn import ablate_neurons


@dataclass(frozen=True)
class Evaluation:
    """A model's scores: % memorised and % clean-correct (greedy continuation of the clean prompt), the
    official k=7 next-token accuracy (%, PAD targets included) and on real tokens only, the mean accuracy
    over every k, the k=7 perplexity, and the accuracy drop from the base model (points)."""

    mem: float
    clean_correct: float
    acc: float
    acc_real_tokens: float
    acc_all_k: float
    ppl: float
    acc_drop: float


@dataclass(frozen=True, eq=False)
class SettingRecord:
    """One method at one hyper-parameter value: its scores and the process CPU seconds it cost."""

    setting: Setting
    family: str
    param: str
    seconds: float
    scores: Evaluation

    def row(self, *, seconds: bool = True) -> dict[str, Any]:
        """The flat row of results.json (``seconds=False``: without the clock, for the metrics)."""
        head: dict[str, Any] = {"method": self.setting.method, "family": self.family, "param": self.param}
        head["value"] = self.setting.value
        return {**head, **({"seconds": self.seconds} if seconds else {}), **dataclasses.asdict(self.scores)}


@dataclass(frozen=True)
class CurvePoint:
    """Clean fine-tuning after ``epoch`` epochs: CPU seconds so far, % memorised, accuracy drop."""

    epoch: int
    seconds: float
    mem: float
    acc_drop: float


@dataclass(frozen=True, eq=False)
class BaseRecord:
    """The unmitigated model: its scores, mean loss of the last 5 steps, size, the data's counts (eligible
    noised sequences, memorised ones, training rows) and its training CPU seconds."""

    scores: Evaluation
    final_loss: float
    n_params: int
    n_eligible: int
    n_memorised: int
    n_train_rows: int
    train_seconds: float


@dataclass(frozen=True, eq=False)
class Records:
    """Every part of one run: the base model, every Setting's record (in run order), each method's
    selected record (None when no setting is within the accuracy budget), the fine-tuning curves."""

    base: BaseRecord
    settings: Mapping[Setting, SettingRecord]
    selected: Mapping[str, SettingRecord | None]
    ft_curves: Mapping[str, list[CurvePoint]]

    def of(self, method: str) -> list[SettingRecord]:
        """``method``'s records in grid order."""
        return [r for s, r in self.settings.items() if s.method == method]


def evaluate(
    model: torch.nn.Module, data: TinyMemData, base_acc: float | None = None, mem: MemResult | None = None
) -> Evaluation:
    """Memorisation and clean-test scores of ``model``; ``mem``: its memorisation result if already known."""
    c = data.config
    r = mem or percent_memorized(model, data.noised, data.clean_twins, c.prompt_len, c.window)
    main = next_token_scores(model, data.test[c.main_k])
    acc_k = [main.accuracy if k == c.main_k else token_accuracy(model, t) for k, t in data.test.items()]
    return Evaluation(
        mem=r.percent_memorized,
        clean_correct=r.percent_clean_correct,
        acc=main.accuracy,
        acc_real_tokens=main.accuracy_real_tokens,
        acc_all_k=float(np.mean(acc_k)),
        ppl=main.perplexity,
        acc_drop=(base_acc - main.accuracy) if base_acc is not None else 0.0,
    )


def train_base(cfg: Config, seed: int, device: str) -> tuple[BaseRecord, MitigationContext]:
    """Train the base model on ``seed``'s data; its record and the mitigations' context."""
    data = build_data(cfg.data, seed)
    mcfg = tinymem_config(cfg.n_layer, n_embd=cfg.n_embd, n_head=cfg.n_head, n_positions=cfg.data.max_ctx)
    base = build_model(mcfg, seed=seed, device=device)
    spec = TrainSpec(epochs=cfg.epochs, lr=cfg.lr, batch_size=cfg.batch_size, seed=seed)
    t0 = time.process_time()
    losses = train_lm(base, data.train, spec, device=device)
    train_s = time.process_time() - t0
    base_mem = percent_memorized(base, data.noised, data.clean_twins, cfg.data.prompt_len, cfg.data.window)
    ctx = MitigationContext(
        data=data, base_model=base, mem=data.noised[base_mem.memorized_idx], clean=data.clean_train,
        train_spec=spec, model_config=mcfg, seed=seed, device=device, unlearn_epochs=cfg.unlearn_epochs,
        slim_epochs=cfg.slim_epochs,
    )  # fmt: skip
    record = BaseRecord(
        scores=evaluate(base, data, mem=base_mem),
        final_loss=float(np.mean(losses[-5:])),
        n_params=n_params(base),
        n_eligible=int(data.eligible.sum()),
        n_memorised=len(ctx.mem),
        n_train_rows=len(data.train),
        train_seconds=train_s,
    )
    return record, ctx


def sweep_method(ctx: MitigationContext, name: str, cfg: Config, base_acc: float) -> list[SettingRecord]:
    """A non-fine-tuning method over its grid. A neuron method scores once (its declared ``scores``) and
    ablates at every ratio; the scoring time is charged to every setting."""
    m = METHODS[name]
    scores, score_s = None, 0.0
    if m.scores is not None and len(ctx.mem):
        t0 = time.process_time()
        scores = m.scores(ctx)
        score_s = time.process_time() - t0
    out = []
    for value in cfg.grid(name):
        t0 = time.process_time()
        model = ablate_neurons(ctx.base_model, scores, value) if scores is not None else m.fn(ctx, value)
        secs = time.process_time() - t0 + score_s
        out.append(
            SettingRecord(Setting(name, value), m.family, m.param, secs, evaluate(model, ctx.data, base_acc))
        )
    return out


def finetune_sweep(
    ctx: MitigationContext, name: str, cfg: Config, base_acc: float
) -> tuple[list[SettingRecord], list[CurvePoint]]:
    """One fine-tuning run to max(ft_epochs) epochs, evaluated (untimed) after every epoch."""
    data = ctx.data
    rows_src = finetune_rows(data, name)
    model = copy.deepcopy(ctx.base_model)
    spe = math.ceil(len(rows_src) / ctx.train_spec.batch_size)
    clock = {"start": time.process_time(), "paused": 0.0}
    curve: list[CurvePoint] = []
    records: list[SettingRecord] = []

    def cb(step: int, m: torch.nn.Module) -> None:
        t_pause = time.process_time()
        secs = t_pause - clock["start"] - clock["paused"]
        ev = evaluate(m, data, base_acc)
        epoch = step // spe
        curve.append(CurvePoint(epoch=epoch, seconds=secs, mem=ev.mem, acc_drop=ev.acc_drop))
        if epoch in cfg.ft_epochs:
            records.append(SettingRecord(Setting(name, float(epoch)), "fine-tuning", "epochs", secs, ev))
        clock["paused"] += time.process_time() - t_pause

    finetune(
        model, rows_src, epochs=max(cfg.ft_epochs), lr=ctx.train_spec.lr,
        batch_size=ctx.train_spec.batch_size, seed=ctx.seed, device=ctx.device, callback=cb,
        callback_every=spe,
    )  # fmt: skip
    return records, curve


def select(records: list[SettingRecord], max_acc_drop: float) -> SettingRecord | None:
    """The one selection rule (:func:`tinymem.methods.select_best`) over one method's records."""
    rows = [r.row() for r in records]
    chosen = select_best(rows, max_acc_drop=max_acc_drop)
    return next((r for r, row in zip(records, rows, strict=True) if row is chosen), None)


def run_cases(config: Config, *, seed: int = 0, device: str = "cpu") -> Records:
    """Train, mitigate, evaluate and select, on ``config.torch_threads`` intra-op threads."""
    check_seed(seed)
    with torch_threads(max(1, config.torch_threads)):
        base, ctx = train_base(config, seed, device)
        settings: dict[Setting, SettingRecord] = {}
        ft_curves: dict[str, list[CurvePoint]] = {}
        for name in track(config.methods, desc="tinymem methods"):
            if METHODS[name].family == "fine-tuning":
                recs, ft_curves[name] = finetune_sweep(ctx, name, config, base.scores.acc)
            else:
                recs = sweep_method(ctx, name, config, base.scores.acc)
            settings.update({r.setting: r for r in recs})
    selected = {
        name: select([r for s, r in settings.items() if s.method == name], config.max_acc_drop)
        for name in config.methods
    }
    return Records(base=base, settings=settings, selected=selected, ft_curves=ft_curves)


def metrics(records: Records) -> dict[str, Any]:
    """The records' JSON form: no wall-clock numbers, so that same-seed runs give identical metrics."""
    b = records.base
    return {
        "base": {
            **dataclasses.asdict(b.scores),
            "final_loss": b.final_loss,
            "n_params": b.n_params,
            "n_eligible": b.n_eligible,
            "n_memorised": b.n_memorised,
            "n_train_rows": b.n_train_rows,
        },
        "rows": [r.row(seconds=False) for r in records.settings.values()],
        "selected": {k: v.row(seconds=False) if v is not None else None for k, v in records.selected.items()},
        "ft_curves": {
            k: [{"epoch": c.epoch, "mem": c.mem, "acc_drop": c.acc_drop} for c in v]
            for k, v in records.ft_curves.items()
        },
    }


def run(config: Config, *, seed: int = 0, device: str = "cpu") -> Report:
    """Train, mitigate, evaluate, select, check the claims."""
    records = run_cases(config, seed=seed, device=device)
    return Report(
        metrics=metrics(records), claims=claims(records, config), tables=tables(records, config),
        notes=notes(records, config),
    )  # fmt: skip
