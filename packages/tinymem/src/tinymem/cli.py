"""``tinymem`` console script: ``tinymem reproduce [--quick] [--seed N] [--device D] [--out DIR] [--check]``.

The experiment module (torch, transformers) is imported only when a run starts.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from paperkit import Experiment, Report, reproduce_main

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def _reproduce() -> Any:
    return importlib.import_module("tinymem.reproduce")


def _quick() -> Any:
    return _reproduce().Config.quick()


def _full() -> Any:
    return _reproduce().Config.full()


def _smoke() -> Any:
    return _reproduce().Config.smoke()


def _run(config: Any, *, seed: int, device: str) -> Report:
    report: Report = _reproduce().run(config, seed=seed, device=device)
    return report


def _plots(report: Report) -> Mapping[str, Figure]:
    figs: Mapping[str, Figure] = _reproduce().plots(report)
    return figs


EXPERIMENT = Experiment(
    package="tinymem",
    description="TinyMem: memorisation mitigation (regularizers, fine-tuning, unlearning, BalancedSubnet) "
    "on tiny GPT-2 models (Sakarvadia et al.; ICLR 2025).",
    quick=_quick,
    full=_full,
    smoke=_smoke,
    run=_run,
    plots=_plots,
    devices=("cpu", "cuda"),
)


def main(argv: Sequence[str] | None = None) -> int:
    return reproduce_main(EXPERIMENT, argv)
