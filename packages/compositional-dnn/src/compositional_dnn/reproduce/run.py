"""``run(config, *, seed, device) -> Report``: tune on a dev split, then the scaling-law grid, paired seeds.

For each cell (nu_g, nu_h) and seed s: one target ``make_composition(seed = 1000 s + cell)``; every method
sees the same data and (networks) the same initialisation seed s, at every N (nested training prefixes,
one fixed test set). Tuning: per cell, on the first seed's target, each method scores its own grid (three
values, ``METHODS[name].grid``) trained on the first ``n_tune`` rows and evaluated on the dev rows
``[N_max - n_dev, N_max)``; the test rows are never used for a choice.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from paperkit import Report, check_seed, track, tune

from compositional_dnn.data import Composition, make_composition
from compositional_dnn.methods import METHODS, Fit
from compositional_dnn.reproduce.claims import claims
from compositional_dnn.reproduce.config import Config
from compositional_dnn.reproduce.tables import tables

__all__ = ["Records", "method_kwargs", "run", "run_grid", "tune_cell"]


@dataclass(frozen=True)
class Records:
    """``test_mse[cell][method]``: ``(n_seeds, len(Ns))``; same for ``train_mse`` and ``complexity``
    (NaN for KRR); ``oracle`` is KRR on the true Z; ``var_test[cell]``: ``(n_seeds,)`` output variance."""

    test_mse: dict[str, dict[str, np.ndarray]]
    train_mse: dict[str, dict[str, np.ndarray]]
    complexity: dict[str, dict[str, np.ndarray]]
    var_test: dict[str, np.ndarray]
    tuned: dict[str, dict[str, dict[str, Any]]]
    jitter: dict[str, list[tuple[float, float]]]


def cell_name(cell: tuple[float, float]) -> str:
    return f"nu_g={cell[0]:g},nu_h={cell[1]:g}"


def method_kwargs(config: Config, name: str) -> dict[str, Any]:
    """The architecture and schedule arguments a registry method gets from the config."""
    if METHODS[name].kind == "kernel":
        return {"nu": config.krr_nu}
    common = {"stages": config.stages, "n_batches": config.n_batches}
    arch = {
        "accnet": {"wide": config.acc_wide, "narrow": config.acc_narrow, "n_blocks": config.acc_blocks},
        "shallow": {"width": config.shallow_width},
        "deep": {"width": config.deep_width, "depth": config.deep_depth},
    }[name]
    return {**common, **arch}


def _fit(name: str, config: Config, data: tuple[np.ndarray, ...], setting: dict[str, Any], seed: int,
         device: str) -> Fit:  # fmt: skip
    kw = {**method_kwargs(config, name), **setting}
    if METHODS[name].kind == "network":
        kw.update(seed=seed, device=device)
    return METHODS[name].call(*data, **kw)


def tune_cell(comp: Composition, config: Config, seed: int, device: str) -> dict[str, dict[str, Any]]:
    """Each method's best grid value by dev MSE (``paperkit.tune``, one grid cell per value)."""
    n_max = config.Ns[-1]
    X, _, Y = comp.train(n_max)
    data = (X[: config.n_tune], Y[: config.n_tune], X[n_max - config.n_dev :], Y[n_max - config.n_dev :])
    out = {}

    def dev_mse(name: str, setting: Any) -> float:
        return _fit(name, config, data, dict(setting), seed, device).test_mse

    for name in config.methods:
        info = METHODS[name]
        res = tune(dev_mse, [name], {info.hyper: info.grid}, maximize=False)[name]
        out[name] = {"setting": dict(res.best), "dev_mse": res.best_score, "grid_scores": list(res.scores)}
    return out


def run_grid(config: Config, seed: int, device: str) -> Records:
    """Tune per cell, then every (cell, seed, method, N)."""
    names = [*config.methods, "oracle"]
    shape = (config.n_seeds, len(config.Ns))
    test: dict[str, dict[str, np.ndarray]] = {}
    train: dict[str, dict[str, np.ndarray]] = {}
    cx: dict[str, dict[str, np.ndarray]] = {}
    var: dict[str, np.ndarray] = {}
    tuned: dict[str, dict[str, dict[str, Any]]] = {}
    jit: dict[str, list[tuple[float, float]]] = {}
    jobs = [(c, i) for c in range(len(config.cells)) for i in range(config.n_seeds)]
    for c, i in track(jobs, desc="cells x seeds"):
        cell, key, s = config.cells[c], cell_name(config.cells[c]), seed + i
        if i == 0:
            test[key], train[key] = ({n: np.zeros(shape) for n in names} for _ in range(2))
            cx[key] = {n: np.full(shape, np.nan) for n in names}
            var[key], jit[key] = np.zeros(config.n_seeds), []
        comp = make_composition(
            config.n_total, nu_g=cell[0], nu_h=cell[1], d_in=config.d_in, d_mid=config.d_mid,
            d_out=config.d_out, seed=1000 * s + c,
        )  # fmt: skip
        jit[key].append((comp.jitter_g, comp.jitter_h))
        if i == 0:
            tuned[key] = tune_cell(comp, config, s, device)
        Xte, Zte, Yte = comp.test(config.n_test)
        var[key][i] = float(Yte.var())
        for j, N in enumerate(config.Ns):
            X, Z, Y = comp.train(N)
            for name in config.methods:
                f = _fit(name, config, (X, Y, Xte, Yte), tuned[key][name]["setting"], s, device)
                test[key][name][i, j], train[key][name][i, j] = f.test_mse, f.train_mse
                cx[key][name][i, j] = np.nan if f.complexity is None else f.complexity
            f = _fit("krr", config, (Z, Y, Zte, Yte), tuned[key]["krr"]["setting"], s, device)
            test[key]["oracle"][i, j], train[key]["oracle"][i, j] = f.test_mse, f.train_mse
    return Records(test, train, cx, var, tuned, jit)


def run(config: Config, *, seed: int = 0, device: str = "cpu") -> Report:
    seed = check_seed(seed)
    rec = run_grid(config, seed, device)
    seeds = tuple(range(seed, seed + config.n_seeds))
    cl, metrics = claims(rec, config, seeds)
    notes = [
        f"Targets Y = h(g(X)): X ~ N(0, I_{config.d_in}), g: {config.d_mid} GP columns, h: {config.d_out} GP "
        f"columns, Matérn kernels on the RMS distance (official generator); {config.n_total} points per "
        f"(cell, seed), the last {config.n_test} the test set; N in {list(config.Ns)}; seeds {list(seeds)}.",
        f"AccNet {[config.d_in] + [config.acc_wide, config.acc_narrow] * (config.acc_blocks - 1)}"
        f"{[config.acc_wide, config.d_out]}, shallow width {config.shallow_width}; Adam, {config.n_batches} "
        f"contiguous batches per epoch, stages (lr, wd, epochs) {list(config.stages)}, lr x the tuned "
        "lr_scale.",
        "'oracle' = Matérn KRR of Y on the true Z = g(X) (h alone, learned in d_mid dimensions).",
    ]
    return Report(metrics=metrics, claims=cl, tables=tables(rec, config), notes=notes)
