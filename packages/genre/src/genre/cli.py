"""``genre`` console script: ``genre reproduce [--quick] [--seed N] [--device D] [--out DIR] [--check]``.

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
    from genre.reproduce import Config

    return Config.quick()


def _full() -> Any:
    from genre.reproduce import Config

    return Config.full()


def _smoke() -> Any:
    from genre.reproduce import Config

    return Config.smoke()


def _run(config: Any, *, seed: int, device: str) -> Report:
    from genre.reproduce import run

    return run(config, seed=seed, device=device)


def _plots(report: Report) -> Mapping[str, Figure]:
    from genre.reproduce import plots

    return plots(report)


EXPERIMENT = Experiment(
    package="genre",
    description="GenRe generative recourse vs NNR, Wachter, Growing Spheres and ROAR on semi-synthetic "
    "moons and breast-cancer data (Garg, Nagalapatti, Sarawagi; ICLR 2025).",
    quick=_quick,
    full=_full,
    smoke=_smoke,
    run=_run,
    plots=_plots,
    devices=("cpu", "cuda"),
)


def main(argv: Sequence[str] | None = None) -> int:
    return reproduce_main(EXPERIMENT, argv)
