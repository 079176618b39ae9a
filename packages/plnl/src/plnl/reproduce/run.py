"""``run(config, *, seed, device) -> Report``: every method on the same lr grid and paired seeds; the lr
chosen on the dev split (mean over seeds); ablations at PLNL's chosen lr; claims on the test split."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from paperkit import Report, check_seed, track, tune

from plnl.data import CLLData, cll_digits
from plnl.methods import METHODS, run_method
from plnl.reproduce.claims import claims
from plnl.reproduce.config import Config
from plnl.reproduce.tables import tables

__all__ = ["Record", "Records", "evaluate", "run"]


@dataclass(frozen=True)
class Record:
    """One training run: method, lr and seed; dev and test accuracy; PLNL's diagnostics (CPU time is in
    RESULTS.md, not here: a record must be the same for the same seed)."""

    method: str
    lr: float
    seed: int
    dev_acc: float
    test_acc: float
    history: dict[str, list[float]] = field(default_factory=dict)


@dataclass(frozen=True)
class Records:
    """All runs, the lr chosen per method, the seeds, and the tuning rows."""

    runs: tuple[Record, ...]
    chosen: dict[str, float]
    seeds: tuple[int, ...]
    tuning: tuple[dict[str, Any], ...]

    def at(self, method: str) -> list[Record]:
        """The method's runs at its chosen lr, in seed order."""
        lr = self.chosen[method]
        rows = {r.seed: r for r in self.runs if r.method == method and r.lr == lr}
        return [rows[s] for s in self.seeds]

    def test(self, method: str) -> np.ndarray:
        return np.array([r.test_acc for r in self.at(method)])


def evaluate(method: str, data: CLLData, config: Config, *, lr: float, seed: int, device: str) -> Record:
    """Train ``method`` on ``data`` with the config's budget and score it on dev and test."""
    x_eval = torch.cat([data.x_dev, data.x_test])
    fit = run_method(
        method, data.x_train, data.C, x_eval, epochs=config.epochs, pre_epochs=config.pre_epochs, lr=lr,
        seed=seed, device=device, y_true=data.y_train, cons_ramp=config.cons_ramp, lam=config.lam,
        k=config.k, t=config.t, qs=config.qs, weps=config.weps,
    ) if METHODS[method].family == "plnl" else run_method(
        method, data.x_train, data.C, x_eval, epochs=config.epochs, pre_epochs=config.pre_epochs, lr=lr,
        seed=seed, device=device, y_true=data.y_train, cons_ramp=config.cons_ramp,
    )  # fmt: skip
    pred = fit.eval_logits.argmax(1).cpu()
    nd = len(data.x_dev)
    dev = float((pred[:nd] == data.y_dev.cpu()).float().mean())
    test = float((pred[nd:] == data.y_test.cpu()).float().mean())
    hist = {k: v for k, v in fit.history.items() if not k.startswith("loss")}
    return Record(method, float(lr), seed, dev, test, hist)


def run(config: Config, *, seed: int = 0, device: str = "cpu") -> Report:
    seed = check_seed(seed)
    seeds = tuple(range(seed, seed + config.n_seeds))
    data = {
        s: cll_digits(
            config.n_train, n_dev=config.n_dev, nc=config.nc, distr=config.distr, seed=s, device=device
        )
        for s in seeds
    }
    tuned_methods = ("plnl", *config.baselines)
    runs = [
        evaluate(m, data[s], config, lr=lr, seed=s, device=device)
        for s in track(seeds, desc="seeds (grid)")
        for m in tuned_methods
        for lr in config.lr_grid
    ]
    dev = {(r.method, r.lr): [] for r in runs}  # type: dict[tuple[str, float], list[float]]
    for r in runs:
        dev[(r.method, r.lr)].append(r.dev_acc)
    tuned = tune(lambda m, cell: float(np.mean(dev[(m, cell["lr"])])), tuned_methods, {"lr": config.lr_grid})
    chosen = {m: float(t.best["lr"]) for m, t in tuned.items()}
    for m in config.ablations:  # ablations take PLNL's chosen lr (they vary PLNL, not the tuning)
        chosen[m] = chosen["plnl"]
        runs += [
            evaluate(m, data[s], config, lr=chosen[m], seed=s, device=device) for s in track(seeds, desc=m)
        ]
    records = Records(tuple(runs), chosen, seeds, tuple(row for t in tuned.values() for row in t.rows()))
    cl, metrics = claims(records, config)
    metrics["runs"] = [r.__dict__ for r in runs]
    metrics["chosen_lr"] = chosen
    notes = [
        f"Data: sklearn digits 8x8, {config.n_train} training images with {config.nc} uniform complementary "
        f"label(s) each (distr {config.distr}), {config.n_dev} dev images (true labels, lr grid only) and "
        f"the 20% stratified test split; seeds {list(seeds)} fix split, labels, init and order per seed.",
        f"Budget per network: {config.pre_epochs} + {config.epochs} epochs (PLNL: SCL-LOG pre-training, then "
        f"PLNL; baselines: all epochs on their loss); MLP 64-256-256-10 with BatchNorm; SGD momentum 0.9, "
        f"wd 1e-4, batch 64; lr grid {list(config.lr_grid)} for every method, chosen on dev.",
        f"PLNL: lambda {config.lam}, k {config.k} ({config.k_frac:.0%} of n), t {config.t}, qs {config.qs}, "
        f"weps {config.weps}, consistency ramp epoch/{config.cons_ramp:g}.",
    ]
    return Report(metrics=metrics, claims=cl, tables=tables(records), notes=notes)
