"""Running the experiment: every case of a Config over paired seeds, into typed records.

``run_cases(config, seed=...)`` returns :class:`Records` (one :class:`CaseRecord` per :class:`Case`);
``run(config, seed=..., device=...)`` wraps them, with the claims and the table, into a paperkit Report
whose ``metrics["cases"]`` maps each Case to its CaseRecord (results.json keys them by ``str(case)``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from paperkit import Report, track
from paperkit.validation import SEED_MAX, check_int, check_seed

from rslqr._linalg import FloatArray
from rslqr.experiments import (
    GrowthSummary,
    doubling_grid,
    identifiable,
    late_regret_per_episode,
    median_inf,
    risk_neutral_gap,
    run_seeds,
    summarise_growth,
)
from rslqr.reproduce.claims import claims
from rslqr.reproduce.config import Case, Config
from rslqr.reproduce.tables import regret_table
from rslqr.systems import system_a, system_b

NOTES = (
    "Regret is exact: J^π(x0) − J*(x0) from the risk-sensitive Riccati recursions, not Monte Carlo.",
    "A learner whose controller has a divergent criterion (some G_t not positive definite) on the true "
    "system incurs +inf regret; slopes of such runs are inf and medians are used so that fewer than half "
    "the seeds diverging does not hide the others.",
)


@dataclass(frozen=True, eq=False)
class Curve:
    """Cumulative regret at log-spaced episode counts (plots): N (P,), median (P,), per_seed (S, P)."""

    N: NDArray[np.int64]
    median: FloatArray
    per_seed: FloatArray


@dataclass(frozen=True, eq=False)
class CaseRecord:
    """What one case measured: growth statistics, late per-episode regret (S,) over (N/2, N], estimation
    error, Riccati fallbacks and the plotted curve."""

    case: Case
    growth: GrowthSummary
    late_regret_per_episode: FloatArray
    final_theta_error_median: float
    riccati_fallbacks: int
    curve: Curve


@dataclass(frozen=True, eq=False)
class Records:
    """Every case of one run, keyed by its Case, with the seeds, the doubling grid of the fits, Assumption 1
    per system and the per-episode regret of the true system's risk-neutral gains (CE-LQR's floor)."""

    seeds: tuple[int, ...]
    doubling_grid: NDArray[np.int64]
    identifiable: Mapping[str, bool | None]
    risk_neutral_gap: float
    cases: Mapping[Case, CaseRecord]


def log_grid(n: int, points: int = 48) -> NDArray[np.int64]:
    """About ``points`` log-spaced episode counts in [1, n] (the plotted points of the curves)."""
    return np.unique(np.geomspace(1, n, points).round().astype(np.int64))


def run_case(case: Case, config: Config, seeds: list[int], grid: NDArray[np.int64]) -> CaseRecord:
    """Run one case over the seeds (paired: seed s gives every learner the same θ̂^(1), x_0 and noise)."""
    logs = run_seeds(
        case.algorithm, case.build_system(config.T), config.n_episodes, seeds, config.theta_init_scale
    )
    curves = np.stack([log.cumulative_regret for log in logs])
    plot_grid = log_grid(config.n_episodes)
    return CaseRecord(
        case=case,
        growth=summarise_growth(curves, grid),
        late_regret_per_episode=late_regret_per_episode(curves),
        final_theta_error_median=float(median_inf(np.array([log.theta_error[-1] for log in logs]))),
        riccati_fallbacks=int(sum(log.n_fallbacks for log in logs)),
        curve=Curve(
            N=plot_grid, median=median_inf(curves, axis=0)[plot_grid - 1], per_seed=curves[:, plot_grid - 1]
        ),
    )


def run_cases(config: Config, *, seed: int = 0) -> Records:
    """Every case of ``config`` on seeds ``seed, …, seed + n_seeds - 1``."""
    check_seed(seed)
    check_int(seed + config.n_seeds - 1, "seed + n_seeds - 1", high=SEED_MAX)
    seeds = list(range(seed, seed + config.n_seeds))
    grid = doubling_grid(config.n_episodes, config.slope_from)
    records = {
        case: run_case(case, config, seeds, grid) for case in track(config.cases(), desc="rslqr reproduce")
    }
    return Records(
        seeds=tuple(seeds),
        doubling_grid=grid,
        identifiable={
            "A": identifiable(system_a(config.gamma, config.T)),
            "B": identifiable(system_b(config.gamma, config.T)) if config.system_b else None,
        },
        risk_neutral_gap=risk_neutral_gap(system_a(config.gamma, config.T)),
        cases=records,
    )


def run(config: Config, *, seed: int = 0, device: str = "cpu") -> Report:
    """Run every (system, γ, learner) case, summarise the regret curves and check the claims.

    Args:
        config: the scale (``Config.quick()``, ``Config.full()``, ``Config.smoke()``).
        seed: base seed; run i of every learner uses seed ``seed + i``.
        device: only ``"cpu"`` (the method is small dense linear algebra in numpy).
    """
    if device != "cpu":
        raise ValueError(f"device must be 'cpu' (rslqr runs on the CPU only, numpy), got {device!r}")
    records = run_cases(config, seed=seed)
    metrics = {
        "identifiable": dict(records.identifiable),
        "seeds": list(records.seeds),
        "doubling_grid": records.doubling_grid,
        "risk_neutral_gap_per_episode": records.risk_neutral_gap,
        "cases": records.cases,
    }
    return Report(
        metrics=metrics,
        claims=claims(records, config),
        tables={"Regret by learner": regret_table(records, config)},
        notes=list(NOTES),
    )


def records_of(report: Report) -> Mapping[Case, CaseRecord]:
    """The typed case records inside a Report made by :func:`run`."""
    cases: Mapping[Case, CaseRecord] = report.metrics["cases"]
    return cases
