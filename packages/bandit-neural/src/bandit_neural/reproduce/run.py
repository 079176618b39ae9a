"""Running the experiment: every case of a Config on paired seeds, into typed records.

``run_cases(config, seed=..., device=...)`` returns :class:`Records` (one :class:`CaseRecord` per
:class:`Case`); ``run(config, seed=..., device=...)`` wraps them, with the claims and the table, into a
paperkit Report whose ``metrics["cases"]`` maps each Case to its CaseRecord (results.json keys them by
``str(case)``). Environment seed s gives every algorithm the same θ*, contexts and label draws.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from paperkit import Report, track
from paperkit.validation import SEED_MAX, check_int, check_seed

from bandit_neural.algorithms import ALGORITHMS, GLM_ALGORITHMS
from bandit_neural.envs import ContextualBinaryEnv, ContextualDuelingEnv
from bandit_neural.nets import torch_device
from bandit_neural.reproduce.claims import claims
from bandit_neural.reproduce.config import NEURAL, Case, Config
from bandit_neural.reproduce.tables import notes, regret_table
from bandit_neural.run import RunLog, run_binary, run_dueling

FloatArray = NDArray[np.float64]


@dataclass(frozen=True, eq=False)
class Curve:
    """Cumulative regret at ~100 evenly spaced rounds (plots): t (P,), mean (P,), per_seed (S, P)."""

    t: NDArray[np.int64]
    mean: FloatArray
    per_seed: FloatArray


@dataclass(frozen=True, eq=False)
class CaseRecord:
    """What one case measured over the seeds (S of them).

    Attributes:
        R_T_per_seed: (S,) final cumulative average regret; R_T_mean, R_T_std its mean and std (ddof 1).
        half_ratio_per_seed: (S,) regret in (T/2, T] over regret in (0, T/2]; half_ratio_of_mean the same
            of the seed-mean curve.
        weak_R_T_mean: seed-mean final weak regret f(x*) − max(f(x₁), f(x₂)).
        self_duel_fraction: share of rounds dueling an arm with itself (None for binary feedback).
        curve: the plotted curve.
    """

    R_T_per_seed: FloatArray
    R_T_mean: float
    R_T_std: float
    half_ratio_per_seed: FloatArray
    half_ratio_of_mean: float
    weak_R_T_mean: float
    self_duel_fraction: float | None
    curve: Curve


@dataclass(frozen=True, eq=False)
class Records:
    """Every case of one run keyed by its Case, with the seeds and each case's mean wall seconds a run
    (``seconds`` goes to the table only: metrics are identical for identical seeds)."""

    seeds: tuple[int, ...]
    cases: Mapping[Case, CaseRecord]
    seconds: Mapping[Case, float]

    def nu_ablation(self, config: Config) -> dict[str, float]:
        """ν (formatted ``:g``) -> seed-mean R_T of NDB-UCB on Cosine with the full V."""
        return {
            f"{config.nu if c.nu is None else c.nu:g}": r.R_T_mean
            for c, r in self.cases.items()
            if c.algorithm == "NDB-UCB" and c.utility == "cosine" and not c.diagonal
        }


def make_algorithm(config: Config, case: Case, seed: int, device: str) -> Any:
    """The algorithm of ``case`` with the config's hyper-parameters."""
    name = case.algorithm
    if name == "random-pair":
        return ALGORITHMS[name](config.d, seed=seed)
    common: dict[str, Any] = {
        "lam": config.lam,
        "kappa_mu": config.kappa_mu,
        "nu": config.nu if case.nu is None else case.nu,  # (NDB-greedy ignores it)
        "seed": seed,
        "device": device,
    }
    if name in NEURAL:
        common.update(
            width=config.width,
            depth=config.depth,
            lr=config.lr,
            train_steps=config.train_steps,
            dense_rounds=config.dense_rounds,
            train_every=config.train_every,
            diagonal=case.diagonal,
        )
    table = GLM_ALGORITHMS if case.binary else ALGORITHMS
    return table[name](config.d, **common)


def play(config: Config, case: Case, seed: int, device: str = "cpu") -> RunLog:
    """One run of ``case`` with environment and algorithm seed ``seed``."""
    check_seed(seed)
    algo = make_algorithm(config, case, seed, device)
    if case.binary:
        return run_binary(ContextualBinaryEnv(config.d, config.K, case.utility, seed=seed), algo, config.T)
    return run_dueling(ContextualDuelingEnv(config.d, config.K, case.utility, seed=seed), algo, config.T)


def _play_all(config: Config, seeds: list[int], device: str) -> dict[tuple[Case, int], RunLog]:
    """Every (case, seed) run, in-process or on ``config.workers`` spawned processes."""
    jobs = [(case, s) for case in config.cases for s in seeds]
    # Longest first (neural dueling runs), so that the two workers finish together.
    jobs.sort(key=lambda j: (j[0].algorithm not in NEURAL, j[0].binary))
    out: dict[tuple[Case, int], RunLog] = {}
    if config.workers == 1:
        for case, s in track(jobs, desc="bandit-neural reproduce"):
            out[(case, s)] = play(config, case, s, device)
        return out
    ctx = multiprocessing.get_context("spawn")  # torch and fork do not mix
    with cf.ProcessPoolExecutor(max_workers=config.workers, mp_context=ctx) as pool:
        # The bandits run their rounds on one torch thread (paperkit.torch_threads), so a case gives
        # the same numbers in-process and in a worker.
        futures = {pool.submit(play, config, case, s, device): (case, s) for case, s in jobs}
        for fut in track(cf.as_completed(futures), desc="bandit-neural reproduce", total=len(futures)):
            out[futures[fut]] = fut.result()
    return out


def _grid(T: int, points: int = 100) -> NDArray[np.int64]:
    return np.unique(np.linspace(1, T, points).round().astype(np.int64))


def summarise(logs: list[RunLog], grid: NDArray[np.int64], binary: bool) -> CaseRecord:
    """The :class:`CaseRecord` of one case's runs (one log per seed)."""
    totals = np.array([log.total for log in logs])
    curves = np.stack([log.cumulative for log in logs])
    mean_curve = curves.mean(0)
    half = len(mean_curve) // 2
    return CaseRecord(
        R_T_per_seed=totals,
        R_T_mean=float(totals.mean()),
        R_T_std=float(totals.std(ddof=1)) if len(totals) > 1 else 0.0,
        half_ratio_per_seed=np.array([log.half_ratio() for log in logs]),
        half_ratio_of_mean=float((mean_curve[-1] - mean_curve[half - 1]) / mean_curve[half - 1]),
        weak_R_T_mean=float(np.mean([log.weak_regret.sum() for log in logs])),
        self_duel_fraction=None
        if binary
        else float(np.mean([np.mean(log.arms[:, 0] == log.arms[:, 1]) for log in logs])),
        curve=Curve(t=grid, mean=mean_curve[grid - 1], per_seed=curves[:, grid - 1]),
    )


def run_cases(config: Config, *, seed: int = 0, device: str = "cpu") -> Records:
    """Every case of ``config`` on seeds ``seed, …, seed + n_seeds − 1``."""
    check_seed(seed)
    check_int(seed + config.n_seeds - 1, "seed + n_seeds - 1", high=SEED_MAX)
    torch_device(device)  # refuse an unknown or unavailable device before any worker starts
    seeds = list(range(seed, seed + config.n_seeds))
    logs = _play_all(config, seeds, device)
    grid = _grid(config.T)
    return Records(
        seeds=tuple(seeds),
        cases={c: summarise([logs[(c, s)] for s in seeds], grid, c.binary) for c in config.cases},
        seconds={c: float(np.mean([logs[(c, s)].seconds for s in seeds])) for c in config.cases},
    )


def run(config: Config, *, seed: int = 0, device: str = "cpu") -> Report:
    """Run every case on seeds ``seed .. seed + n_seeds − 1`` and check the claims.

    Args:
        config: the scale (``Config.quick()``, ``Config.full()``, ``Config.smoke()``).
        seed: base seed.
        device: ``"cpu"`` or ``"cuda"`` (the networks and V⁻¹ live there).
    """
    records = run_cases(config, seed=seed, device=device)
    found = claims(records, config)
    metrics = {
        "seeds": list(records.seeds),
        "cases": records.cases,
        "nu_ablation_cosine": records.nu_ablation(config),
    }
    return Report(
        metrics=metrics,
        claims=found,
        tables={"Final regret by case": regret_table(records)},
        notes=notes(config, all_claims=len(found) >= 7),
    )


def records_of(report: Report) -> Records:
    """The typed records inside a Report made by :func:`run` (the table's seconds are not kept)."""
    return Records(seeds=tuple(report.metrics["seeds"]), cases=report.metrics["cases"], seconds={})
