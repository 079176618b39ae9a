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
from paperkit import Report, check_seed, torch_threads, track, tune
from paperkit.vision import load_digits

from arat.data import noisy_background
from arat.evaluate import EvalConfig, accuracy, gradient_conflict, robust_accuracy
from arat.layers import has_split_bn
from arat.methods import fit, method_config
from arat.models import backbone, default_layers
from arat.reproduce.config import Config
from arat.training import train

__all__ = [
    "MethodRecord",
    "SeedRecord",
    "choose_lr",
    "data_splits",
    "dev_score",
    "epoch_times",
    "run",
    "run_method",
    "sweep_from_tuning",
]


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


def data_splits(config: Config, device: str, *, validation: bool = False) -> tuple[torch.Tensor, ...]:
    """``(x_train, y_train, x_test, y_test)``, or the dev split's ``(x_fit, y_fit, x_dev, y_dev)`` (90:10 of
    the training part) with ``validation``; backgrounds of noise ``config.background`` fixed per split."""
    d = load_digits(8, seed=0, validation=validation, device=device)
    ntr = config.train_limit or d.n
    nte = config.test_limit or len(d.y_test)
    noise = (3, 4) if validation else (1, 2)  # data seeds of the backgrounds, never a training seed
    xtr = noisy_background(d.x_train, config.background, seed=noise[0])
    xte = noisy_background(d.x_test, config.background, seed=noise[1])
    return xtr[:ntr], d.y_train[:ntr], xte[:nte], d.y_test[:nte]


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


def run_method(
    config: Config, seed: int, name: str, lr: float | None = None, device: str = "cpu"
) -> tuple[MethodRecord, dict[str, float]]:
    """Method ``name`` from ``seed`` (the seed fixes the init, batch order and attack noise, so every method
    of one seed is paired), evaluated on the test split; the naive model also gives the gradient conflict."""
    xtr, ytr, xte, yte = data_splits(config, device)
    base = _train_config(config)
    lr = base.lr if lr is None else lr
    with torch_threads(1):
        tr = fit(name, xtr, ytr, channels=config.channels, arch=config.arch, base=base, seed=seed,
                 device=device, lr=lr)  # fmt: skip
        rec = replace(_record(name, seed, tr, xte, yte, config), lr=lr)
        conflict: dict[str, float] = {}
        if name == "naive":
            n = min(config.conflict_batch, len(xtr))
            conflict = gradient_conflict(tr.model, xtr[:n], ytr[:n], layers=default_layers(tr.model),
                                         eps=base.eps, steps=base.steps, seed=seed)  # fmt: skip
    return rec, conflict


def _seed_record(seed: int, done: list[tuple[MethodRecord, dict[str, float]]]) -> SeedRecord:
    conflict = next((c for _, c in done if c), {})
    return SeedRecord(seed, {r.method: r for r, _ in done}, conflict)


def dev_score(
    config: Config, name: str, lr: float, device: str = "cpu", gamma: float | None = None
) -> dict[str, Any]:
    """One tuning cell: train ``name`` with ``lr`` (and ``gamma``, ARAT's sweep) with the full run's budget
    on the dev split's training part (seed ``first_seed``); score = dev clean + PGD-``tune_steps`` (CE)
    accuracy. Every method gets the same grid, data and epochs."""
    xtr, ytr, xdev, ydev = data_splits(config, device, validation=True)
    base = _train_config(config)
    ev = EvalConfig(eps=base.eps, steps=config.tune_steps, restarts=1, attacks=("pgd_ce",))
    extra = {} if gamma is None else {"gamma": gamma}
    with torch_threads(1):
        tr = fit(name, xtr, ytr, channels=config.channels, arch=config.arch, base=base,
                 seed=config.first_seed, lr=lr, device=device, **extra)  # fmt: skip
        r = robust_accuracy(tr.model, xdev, ydev, ev, seed=config.first_seed)
    return {
        "method": name,
        "lr": lr,
        **extra,
        "dev_clean": r["clean"],
        "dev_pgd": r["pgd_ce"],
        "dev_score": r["clean"] + r["pgd_ce"],
        "final_loss": float(tr.loss[-1]),
    }


def choose_lr(rows: list[dict[str, Any]]) -> dict[str, float]:
    """Each method's best lr on the dev score (``paperkit.stats.tune``: first on ties, NaN worst) from the
    cells already trained (in parallel) in ``rows``; marks the chosen rows."""
    score = {(r["method"], r["lr"]): r["dev_score"] for r in rows}
    methods = list(dict.fromkeys(r["method"] for r in rows))
    grid = list(dict.fromkeys(r["lr"] for r in rows))
    if len(score) != len(methods) * len(grid):
        raise ValueError("rows must hold one cell per (method, lr) of one grid shared by every method")
    tuned = tune(lambda m, cell: score[(m, cell["lr"])], methods, {"lr": grid})
    best = {m: float(t.best["lr"]) for m, t in tuned.items()}
    for r in rows:
        r["chosen"] = r["lr"] == best[r["method"]]
    return best


def epoch_times(config: Config, seed: int, device: str = "cpu") -> dict[str, list[float]]:
    """Process CPU seconds of single training epochs of AT and ARAT in this one process (one thread), one
    warm-up epoch each, then ``config.time_reps`` interleaved repetitions (AT, ARAT, AT, ...): both
    methods see the same machine load, so their ratio is paired; the radius is the full ``eps``."""
    xtr, ytr, _, _ = data_splits(config, device)
    base = replace(_train_config(config), epochs=1, eps_warmup=0)
    names = ("at", "arat")
    cfgs = {m: method_config(m, base) for m in names}
    out: dict[str, list[float]] = {m: [] for m in names}
    with torch_threads(1):
        models = {
            m: backbone(channels=config.channels, arch=config.arch, split_bn=cfgs[m].split_bn and
                        cfgs[m].objective == "arat", seed=seed, device=device)
            for m in names
        }  # fmt: skip
        for rep in range(config.time_reps + 1):  # rep 0 warms up (allocator, first-call overheads)
            for m in names:
                spent = float(train(models[m], xtr, ytr, cfgs[m], seed=seed + rep).cpu_seconds[0])
                if rep:
                    out[m].append(spent)
    return out


def _job(args: tuple[str, tuple[Any, ...]]) -> Any:
    kind, rest = args
    if kind == "time":
        return epoch_times(*rest)
    return dev_score(*rest) if kind == "tune" else run_method(*rest)


def _stages(
    config: Config, seeds: list[int], device: str
) -> tuple[
    list[dict[str, Any]], dict[str, float], list[dict[str, Any]], list[SeedRecord], dict[str, list[float]]
]:
    """The lr tuning (dev split), then in one pool the paired epoch timing of AT and ARAT, ARAT's gamma
    sweep at its tuned lr (dev split, reported only) and every (seed, method) training run; jobs, not
    seeds, go to the workers (both cores busy)."""
    cells: list[tuple[str, tuple[Any, ...]]] = [
        ("tune", (config, m, lr, device, None)) for m in config.methods for lr in config.lr_grid
    ]
    pool = None
    if config.workers > 1 and device == "cpu":
        pool = ProcessPoolExecutor(max_workers=config.workers, mp_context=get_context("spawn"))
    mapper = pool.map if pool is not None else map
    try:
        tune_rows = list(track(mapper(_job, cells), total=len(cells), desc="lr tuning")) if cells else []
        lrs = choose_lr(tune_rows) if tune_rows else {}
        arat_lr = lrs.get("arat", config.train.lr)
        # cells already trained are not retrained: ARAT's tuning cell at its chosen lr is the sweep's
        # gamma = train.gamma row, and split BN's cell at that lr its gamma = 0 row (the same config)
        reuse = sweep_from_tuning(config, tune_rows, arat_lr)
        gammas = [float(g) for g in config.gamma_sweep if float(g) not in reuse]
        sweep_jobs: list[tuple[str, tuple[Any, ...]]] = [
            ("tune", (config, "arat", arat_lr, device, g)) for g in gammas
        ]
        runs: list[tuple[str, tuple[Any, ...]]] = [
            ("run", (config, s, m, lrs.get(m), device)) for s in seeds for m in config.methods
        ]
        timing = [("time", (config, seeds[0], device))] if config.measure_time else []
        jobs = timing + sweep_jobs + runs
        out = list(track(mapper(_job, jobs), total=len(jobs), desc="runs"))
        times = out.pop(0) if timing else {}
    finally:
        if pool is not None:
            pool.shutdown()
    trained = [dict(r, cell="sweep") for r in out[: len(sweep_jobs)]]
    sweep = sorted(list(reuse.values()) + trained, key=lambda r: r["gamma"])
    done, k = out[len(sweep_jobs) :], len(config.methods)
    records = [_seed_record(s, done[i * k : (i + 1) * k]) for i, s in enumerate(seeds)]
    return tune_rows, lrs, sweep, records, times


def sweep_from_tuning(
    config: Config, rows: list[dict[str, Any]], arat_lr: float
) -> dict[float, dict[str, Any]]:
    """The gamma-sweep rows read off the tuning cells at ARAT's lr: ARAT's own (gamma = train.gamma) and
    split BN's (ARAT with gamma = 0: ``method_config`` gives both the same ``TrainConfig``)."""
    same = {"arat": float(config.train.gamma)}
    if method_config("splitbn", config.train) == method_config("arat", config.train, gamma=0.0):
        same["splitbn"] = 0.0
    out: dict[float, dict[str, Any]] = {}
    for r in rows:
        g = same.get(r["method"])
        if g is not None and g in config.gamma_sweep and r["lr"] == arat_lr:
            keep = {k: v for k, v in r.items() if k not in ("method", "lr", "chosen")}
            out[g] = {"method": "arat", "lr": arat_lr, "gamma": g, **keep, "cell": f"{r['method']} tuning"}
    return out


def _notes(config: Config, seeds: list[int], lrs: dict[str, float]) -> list[str]:
    t, ev = config.train, config.eval
    n_test = len(data_splits(config, "cpu")[3])
    n_fit, n_dev = (len(v) for v in data_splits(config, "cpu", validation=True)[1::2])
    background = f", backgrounds of uniform noise up to {config.background:g}" if config.background else ""
    return [
        f"sklearn digits 8x8 in [0, 1]{background}, stratified split seed 0 ({n_test} test images); "
        f"{config.arch} CNN channels {list(config.channels)} (BatchNorm, ReLU, GAP); {config.epochs} epochs, "
        f"batch {t.batch_size}, SGD momentum {t.momentum}, wd {t.weight_decay}; train PGD-{t.steps} eps "
        f"{ev.eps} step eps/4 (train mode); seeds {seeds} paired (same init, batch order, attack noise).",
        f"Evaluation on the adv branch: PGD-{ev.steps} (CE, CW; {ev.restarts} restarts, step eps/10), "
        f"APGD-CE {ev.apgd_steps} iterations; 'worst' is the per-sample worst case.",
        "lr per method: "
        + (
            ", ".join(f"{k} {v:g}" for k, v in lrs.items())
            + f" (chosen from {list(config.lr_grid)} on a dev split: {config.epochs} epochs on "
            f"{n_fit} training images, score clean + PGD-{config.tune_steps} accuracy on {n_dev} held-out "
            "ones)"
            if lrs
            else f"{t.lr:g} for every method (no tuning at this scale)"
        ),
    ]


def run(config: Config, *, seed: int = 0, device: str = "cpu") -> Report:
    from arat.reproduce.claims import claims
    from arat.reproduce.tables import tables

    seed = check_seed(seed)
    config = replace(config, first_seed=seed)
    seeds = list(range(seed, seed + config.n_seeds))
    tune_rows, lrs, sweep, records, times = _stages(config, seeds, device)
    metrics = {
        "lr": lrs,
        "tuning": tune_rows,
        "tuning_budget": {"epochs": config.epochs, "score": f"clean + PGD-{config.tune_steps}"},
        "gamma_sweep": sweep,
        "epoch_times": times,
        "seeds": [
            {"seed": r.seed, "methods": {k: asdict(v) for k, v in r.methods.items()}, "conflict": r.conflict}
            for r in records
        ],
    }
    notes = _notes(config, seeds, lrs)
    return Report(metrics=metrics, claims=claims(records, config, tune_rows, times),
                  tables=tables(records, tune_rows, sweep), notes=notes)  # fmt: skip
