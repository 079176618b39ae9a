"""``lrnn-state-tracking`` console script: ``lrnn-state-tracking reproduce [--quick] [--seed N] [--out DIR]
[--check]``.

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
    from lrnn_state_tracking.reproduce import Config

    return Config.quick()


def _full() -> Any:
    from lrnn_state_tracking.reproduce import Config

    return Config.full()


def _smoke() -> Any:
    from lrnn_state_tracking.reproduce import Config

    return Config.smoke()


def _run(config: Any, *, seed: int, device: str) -> Report:
    from lrnn_state_tracking.reproduce import run

    return run(config, seed=seed, device=device)


def _plots(report: Report) -> Mapping[str, Figure]:
    from lrnn_state_tracking.reproduce import plots

    return plots(report)


EXPERIMENT = Experiment(
    package="lrnn-state-tracking",
    description="Linear RNNs with eigenvalues in [-1,1] vs [0,1] on parity and state tracking "
    "(Grazzi et al.; ICLR 2025).",
    quick=_quick,
    full=_full,
    smoke=_smoke,
    run=_run,
    plots=_plots,
    devices=("cpu", "cuda"),
)


def main(argv: Sequence[str] | None = None) -> int:
    return reproduce_main(EXPERIMENT, argv)
