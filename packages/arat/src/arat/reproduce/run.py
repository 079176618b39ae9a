"""``run(config, *, seed, device) -> Report``: tune lr on the dev split, train every method on paired seeds,
evaluate on the full test split, measure the gradient conflict of the naive model."""

from __future__ import annotations

import math
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, replace
from multiprocessing import get_context
from typing import Any

import numpy as np
import torch
from paperkit import Report, check_seed, torch_threads, track
from paperkit.vision import load_digits

from arat.evaluate import EvalConfig, accuracy, gradient_conflict, robust_accuracy
from arat.layers import has_split_bn
from arat.methods import fit, method_config
from arat.models import default_layers
from arat.reproduce.config import Config

__all__ = ["MethodRecord", "SeedRecord", "choose_lr", "dev_score", "run", "run_seed"]


@dataclass(frozen=True)
class MethodRecord:
    """One method under one seed: test accuracies on the adv (test-time) branch, the clean branch's clean
    accuracy (split BN only, else NaN), median CPU seconds per epoch and the last epoch's mean loss."""

    method: str
    seed: int
    lr: float
    gamma: float
    clean: float
    pgd_ce: float
    pgd_cw: float
    apgd_ce: float
    worst: float
    clean_branch: float
    epoch_cpu: float
    final_loss: float


@dataclass(frozen=True)
class SeedRecord:
    seed: int
    methods: dict[str, MethodRecord]
    conflict: dict[str, float]
    gamma_sweep: dict[str, MethodRecord]


def _data(config: Config, device: str, *, validation: bool = False) -> tuple[torch.Tensor, ...]:
    d = load_digits(8, seed=0, validation=validation, device=device)
    ntr = config.train_limit or d.n
    nte = config.test_limit or len(d.y_test)
    return d.x_train[:ntr], d.y_train[:ntr], d.x_test[:nte], d.y_test[:nte]


def _train_config(config: Config) -> Any:
    return replace(config.train, epochs=config.epochs, eps=config.eval.eps)


def _record(
    name: str, seed: int, trained: Any, x: torch.Tensor, y: torch.Tensor, config: Config
) -> MethodRecord:
    r = robust_accuracy(trained.model, x, y, config.eval, seed=seed + 101)
    sub = accuracy(trained.model, x, y, branch="clean") if has_split_bn(trained.model) else math.nan
    cfg = method_config(name, _train_config(config))
    return MethodRecord(
        name,
        seed,
        cfg.lr,
        cfg.gamma,
        r["clean"],
        r.get("pgd_ce", math.nan),
        r.get("pgd_cw", math.nan),
        r.get("apgd_ce", math.nan),
        r["worst"],
        sub,
        float(np.median(trained.cpu_seconds)) if config.measure_time else math.nan,
        float(trained.loss[-1]),
    )


def run_seed(config: Config, seed: int, lrs: dict[str, float], device: str = "cpu") -> SeedRecord:
    """Every method from ``seed`` (same init, batch order and attack noise), evaluated on the test split."""
    xtr, ytr, xte, yte = _data(config, device)
    base = _train_config(config)
    out, conflict, sweep = {}, {}, {}
    with torch_threads(1):
        for name in config.methods:
            tr = fit(
                name,
                xtr,
                ytr,
                channels=config.channels,
                arch=config.arch,
                base=base,
                seed=seed,
                device=device,
                **({"lr": lrs[name]} if name in lrs else {}),
            )
            rec = _record(name, seed, tr, xte, yte, config)
            out[name] = replace(rec, lr=lrs.get(name, base.lr))
            if name == "naive":
                n = min(config.conflict_batch, len(xtr))
                conflict = gradient_conflict(
                    tr.model,
                    xtr[:n],
                    ytr[:n],
                    layers=default_layers(tr.model),
                    eps=base.eps,
                    steps=base.steps,
                    seed=seed,
                )
        if seed == config.first_seed:
            for g in config.gamma_sweep:
                tr = fit(
                    "arat",
                    xtr,
                    ytr,
                    channels=config.channels,
                    arch=config.arch,
                    base=base,
                    seed=seed,
                    device=device,
                    gamma=g,
                    **({"lr": lrs["arat"]} if "arat" in lrs else {}),
                )
                sweep[f"{g:g}"] = replace(_record("arat", seed, tr, xte, yte, config), gamma=g)
    return SeedRecord(seed, out, conflict, sweep)


def dev_score(config: Config, name: str, lr: float, device: str = "cpu") -> dict[str, Any]:
    """One tuning cell: train ``name`` with ``lr`` on the dev split's training part (seed ``first_seed``),
    score = dev clean + PGD-``tune_steps`` (CE) accuracy; every method gets the same grid and epochs."""
    xtr, ytr, xdev, ydev = _data(config, device, validation=True)
    base = _train_config(config)
    ev = EvalConfig(eps=base.eps, steps=config.tune_steps, restarts=1, attacks=("pgd_ce",))
    with torch_threads(1):
        tr = fit(
            name,
            xtr,
            ytr,
            channels=config.channels,
            arch=config.arch,
            base=base,
            seed=config.first_seed,
            lr=lr,
            device=device,
        )
        r = robust_accuracy(tr.model, xdev, ydev, ev, seed=config.first_seed)
    return {
        "method": name,
        "lr": lr,
        "dev_clean": r["clean"],
        "dev_pgd": r["pgd_ce"],
        "dev_score": r["clean"] + r["pgd_ce"],
    }


def choose_lr(rows: list[dict[str, Any]]) -> dict[str, float]:
    """Each method's best lr on the dev score (first on ties); marks the chosen rows."""
    best: dict[str, float] = {}
    for name in dict.fromkeys(r["method"] for r in rows):
        mine = [r for r in rows if r["method"] == name]
        best[name] = mine[int(np.argmax([r["dev_score"] for r in mine]))]["lr"]
        for r in mine:
            r["chosen"] = r["lr"] == best[name]
    return best


def _seed_job(args: tuple[Config, int, dict[str, float], str]) -> SeedRecord:
    return run_seed(*args)


def _tune_job(args: tuple[Config, str, float, str]) -> dict[str, Any]:
    return dev_score(*args)


def run(config: Config, *, seed: int = 0, device: str = "cpu") -> Report:
    from arat.reproduce.claims import claims
    from arat.reproduce.tables import tables

    seed = check_seed(seed)
    config = replace(config, first_seed=seed)
    seeds = list(range(seed, seed + config.n_seeds))
    cells = [(config, m, lr, device) for m in config.methods for lr in config.lr_grid]
    pool = None
    if config.workers > 1 and device == "cpu":
        pool = ProcessPoolExecutor(max_workers=config.workers, mp_context=get_context("spawn"))
    mapper = pool.map if pool is not None else map
    try:
        tune_rows = list(track(mapper(_tune_job, cells), total=len(cells), desc="lr tuning")) if cells else []
        lrs = choose_lr(tune_rows) if tune_rows else {}
        jobs = [(config, s, lrs, device) for s in seeds]
        records = list(track(mapper(_seed_job, jobs), total=len(jobs), desc="seeds"))
    finally:
        if pool is not None:
            pool.shutdown()
    cl = claims(records, config)
    metrics = {
        "lr": lrs,
        "tuning": tune_rows,
        "seeds": [
            {
                "seed": r.seed,
                "methods": {k: asdict(v) for k, v in r.methods.items()},
                "conflict": r.conflict,
                "gamma_sweep": {k: asdict(v) for k, v in r.gamma_sweep.items()},
            }
            for r in records
        ],
    }
    t = config.train
    ev, n_test = config.eval, len(_data(config, "cpu")[3])
    notes = [
        f"sklearn digits 8x8 in [0, 1], stratified split seed 0 ({n_test} test images); {config.arch} CNN "
        f"channels {list(config.channels)} (BatchNorm, ReLU, GAP); {config.epochs} epochs, batch "
        f"{t.batch_size}, SGD momentum {t.momentum}, wd {t.weight_decay}; train PGD-{t.steps} eps {ev.eps} "
        f"step eps/4 (train mode); seeds {seeds} paired (same init, batch order, attack noise).",
        f"Evaluation on the adv branch: PGD-{ev.steps} (CE, CW; {ev.restarts} restarts, step eps/10), "
        f"APGD-CE {ev.apgd_steps} iterations; 'worst' is the per-sample worst case.",
        "lr per method: "
        + (
            ", ".join(f"{k} {v:g}" for k, v in lrs.items())
            if lrs
            else f"{t.lr:g} for every method (no tuning at this scale)"
        ),
    ]
    return Report(metrics=metrics, claims=cl, tables=tables(records, tune_rows), notes=notes)
