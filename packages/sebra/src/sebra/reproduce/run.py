"""``run(config, *, seed, device) -> Report``: tune each method on one grid (dev split), then paired seeds."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from multiprocessing import get_context
from typing import Any

import numpy as np
import torch
from paperkit import Report, Tuned, check_seed, torch_threads, track, tune

from sebra.data import Shortcuts, make_digit_urbancars
from sebra.methods import run_method
from sebra.metrics import group_accuracies, rank_quality
from sebra.reproduce.claims import claims
from sebra.reproduce.config import Config
from sebra.reproduce.tables import tables
from sebra.training import predict_proba

__all__ = ["MethodRecord", "data_for", "dev_split", "run", "run_seed", "tune_all"]


@dataclass(frozen=True)
class MethodRecord:
    """One method under one seed: test metrics, the validation curve, and rank data (timings live in
    ``benchmarks/``: the records must be identical for the same seed)."""

    method: str
    seed: int
    test: Mapping[str, float]
    val_acc: list[float]
    rank: Mapping[str, float] | None = None
    remaining: list[int] | None = None


def data_for(config: Config, seed: int, device: str) -> dict[str, Shortcuts]:
    return make_digit_urbancars(
        config.n_train, config.n_val, config.n_test, ratio_s1=config.ratio_s1, ratio_s2=config.ratio_s2,
        stripe_intensity=config.stripe_intensity, seed=seed, device=device,
    )  # fmt: skip


def dev_split(train: Shortcuts, fraction: float, seed: int) -> tuple[Shortcuts, Shortcuts]:
    """``(fit part, dev part)``: a random ``fraction`` of the training images held out (no bias labels)."""
    g = torch.Generator().manual_seed(seed)
    perm = torch.randperm(len(train), generator=g).to(train.y.device)
    n_dev = max(1, round(fraction * len(train)))
    return train.subset(perm[n_dev:]), train.subset(perm[:n_dev])


def _tune_cell(args: tuple[Config, str, float, str]) -> float:
    """One grid cell: ``method`` at ``lr`` on the fit part, its dev average accuracy at the chosen epoch."""
    config, method, lr, device = args
    data = data_for(replace(config, n_train=config.tune_n_train), config.tune_seed, device)
    fit_part, dev = dev_split(data["train"], config.dev_fraction, config.tune_seed)
    with torch_threads(1):
        fit = run_method(method, fit_part, dev, config.tune_method.with_lr(lr), seed=config.tune_seed,
                         device=device)  # fmt: skip
    return float(np.max(fit.val_acc))


def tune_all(config: Config, device: str, mapper: Callable[..., Any] = map) -> dict[str, Tuned]:
    """Each method's lr from ``config.grid_lr``: trained on the fit part of the ``tune_seed`` training images
    with the budget ``config.tune_method``, scored by the dev part's average accuracy at the chosen epoch;
    the same grid, data and budget for every method (cells computed through ``mapper``)."""
    cells = [(config, m, lr, device) for m in config.methods for lr in config.grid_lr]
    scores = dict(zip([(m, lr) for _, m, lr, _ in cells], mapper(_tune_cell, cells), strict=True))
    tm = config.tune_method
    n_dev = max(1, round(config.dev_fraction * config.tune_n_train))
    fixed = {
        "n_fit": config.tune_n_train - n_dev, "n_dev": n_dev, "epochs": tm.epochs,
        "rank_max_epochs": tm.rank.max_epochs, "debias_epochs": tm.debias.epochs,
    }  # fmt: skip
    return tune(lambda m, cell: scores[(m, cell["lr"])], config.methods, {"lr": config.grid_lr}, fixed=fixed)


def _seed_job(args: tuple[Config, int, Mapping[str, float], str]) -> list[MethodRecord]:
    with torch_threads(1):
        return run_seed(*args)


def run_seed(config: Config, seed: int, lrs: Mapping[str, float], device: str) -> list[MethodRecord]:
    """Every method on the data of ``seed`` (paired: same data, same init of the evaluated network)."""
    data = data_for(config, seed, device)
    test = data["test"]
    out = []
    for name in config.methods:
        fit = run_method(name, data["train"], data["val"], config.method.with_lr(lrs[name]), seed=seed,
                         device=device)  # fmt: skip
        pred = predict_proba(fit.model, test.x).argmax(1)
        metrics = group_accuracies(pred, test.y, test.s1, test.s2)
        rank = rank_quality(fit.ranks, data["train"].aligned) if fit.ranks is not None else None
        rem = fit.remaining.tolist() if fit.remaining is not None else None
        out.append(MethodRecord(name, seed, metrics, fit.val_acc.tolist(), rank, rem))
    return out


def run(config: Config, *, seed: int = 0, device: str = "cpu") -> Report:
    seed = check_seed(seed)
    seeds = tuple(range(seed, seed + config.n_seeds))
    pool = None  # one process per job (seeds, grid cells): the records do not depend on it
    if config.workers > 1 and device == "cpu":
        pool = ProcessPoolExecutor(max_workers=config.workers, mp_context=get_context("spawn"))
    mapper = pool.map if pool is not None else map
    try:
        tuned = tune_all(config, device, mapper) if len(config.grid_lr) > 1 else None
        lrs = {m: (tuned[m].best["lr"] if tuned else config.grid_lr[0]) for m in config.methods}
        jobs = [(config, s, lrs, device) for s in seeds]
        records = [
            r for rs in track(mapper(_seed_job, jobs), total=len(jobs), desc="paired seeds") for r in rs
        ]
    finally:
        if pool is not None:
            pool.shutdown()
    cl, summary = claims(records, config, seeds)
    metrics = {
        "seeds": list(seeds),
        "lr": lrs,
        "tuning": [row for t in (tuned or {}).values() for row in t.rows()],
        "tuning_budget": dict(next(iter(tuned.values())).fixed) if tuned else {},
        "records": [r.__dict__ for r in records],
        "summary": summary,
    }
    tm = config.tune_method
    notes = [
        f"Digits-UrbanCars: {config.n_train} training images (cues aligned with p = {config.ratio_s1} / "
        f"{config.ratio_s2}), {config.n_val} validation and {config.n_test} test images balanced over "
        f"alignment; stripes (S1) of intensity {config.stripe_intensity}, corner square (S2) 1.0.",
        f"Methods {list(config.methods)}, seeds {list(seeds)} (paired); lr per method chosen from "
        f"{list(config.grid_lr)} on a random {config.dev_fraction:.0%} dev split of {config.tune_n_train} "
        f"training images of data seed {config.tune_seed} (dev average accuracy, budget "
        f"{tm.epochs} / {tm.rank.max_epochs} / {tm.debias.epochs} epochs): {lrs}.",
        f"Budget: ERM/JTT/GroupDRO {config.method.epochs} epochs; Sebra ranking <= "
        f"{config.method.rank.max_epochs} epochs then {config.method.debias.epochs} contrastive epochs; "
        "every method keeps its best-validation-accuracy epoch.",
    ]
    return Report(metrics=metrics, claims=cl, tables=tables(records, metrics), notes=notes)
