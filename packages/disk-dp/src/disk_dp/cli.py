"""``disk-dp`` console script: ``disk-dp reproduce [--quick] [--seed N] [--device D] [--out DIR] [--check]``.

The experiment (and torch) is imported only when a run starts, so ``--help``, ``--version`` and refused
arguments answer at once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from paperkit import Experiment, Report, reproduce_main

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def _quick() -> Any:
    from disk_dp.reproduce import Config

    return Config.quick()


def _full() -> Any:
    from disk_dp.reproduce import Config

    return Config.full()


def _smoke() -> Any:
    from disk_dp.reproduce import Config

    return Config.smoke()


def _run(config: Any, *, seed: int, device: str) -> Report:
    from disk_dp.reproduce import run

    return run(config, seed=seed, device=device)


def _plots(report: Report) -> Mapping[str, Figure]:
    from disk_dp.reproduce import plots

    return plots(report)


EXPERIMENT = Experiment(
    package="disk-dp",
    description="DiSK: Kalman-filtered DP optimisers vs DP-SGD / DP-Adam at equal (epsilon, delta) "
    "(Zhang et al.; ICLR 2025).",
    quick=_quick,
    full=_full,
    smoke=_smoke,
    run=_run,
    plots=_plots,
    devices=("cpu", "cuda"),
)


def main(argv: Sequence[str] | None = None) -> int:
    return reproduce_main(EXPERIMENT, argv)
