"""``barrel-snn`` console script: ``barrel-snn reproduce [--quick] [--seed N] [--out DIR] [--check]``.

torch and brian2 are imported only when a run starts, so ``--help`` and ``--version`` answer at once.
"""

from __future__ import annotations

from collections.abc import Sequence

from paperkit import Experiment, reproduce_main

EXPERIMENT = Experiment.lazy(
    "barrel-snn",
    "Biologically constrained barrel-cortex SNN: torch training, brian2 simulation, whisker "
    "deprivation and baselines (ICLR 2025).",
    "barrel_snn.reproduce",
    devices=("cpu", "cuda"),
)


def main(argv: Sequence[str] | None = None) -> int:
    return reproduce_main(EXPERIMENT, argv)
