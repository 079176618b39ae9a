"""``barrel-snn`` console script: ``barrel-snn reproduce [--quick] [--seed N] [--out DIR] [--check]``.

torch and brian2 are imported only when a run starts, so ``--help`` and ``--version`` answer at once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from paperkit import Experiment, Report, reproduce_main

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def _quick() -> Any:
    from barrel_snn.reproduce import Config

    return Config.quick()


def _full() -> Any:
    from barrel_snn.reproduce import Config

    return Config.full()


def _smoke() -> Any:
    from barrel_snn.reproduce import Config

    return Config.smoke()


def _run(config: Any, *, seed: int, device: str) -> Report:
    from barrel_snn.reproduce import run

    return run(config, seed=seed, device=device)


def _plots(report: Report) -> Mapping[str, Figure]:
    from barrel_snn.reproduce import plots

    return plots(report)


EXPERIMENT = Experiment(
    package="barrel-snn",
    description="Biologically constrained barrel-cortex SNN: torch training, brian2 simulation, whisker "
    "deprivation and baselines (ICLR 2025).",
    quick=_quick,
    full=_full,
    smoke=_smoke,
    run=_run,
    plots=_plots,
    devices=("cpu", "cuda"),
)


def main(argv: Sequence[str] | None = None) -> int:
    return reproduce_main(EXPERIMENT, argv)
