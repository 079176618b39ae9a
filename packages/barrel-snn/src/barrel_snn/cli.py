"""``barrel-snn`` console script: ``barrel-snn reproduce [--quick] [--seed N] [--out DIR] [--check]``.

torch and brian2 are imported only when a run starts, so ``--help`` and ``--version`` answer at once.
"""

from __future__ import annotations

from paperkit import Experiment

EXPERIMENT = Experiment.lazy(
    "barrel-snn",
    "Biologically constrained barrel-cortex SNN: torch training, brian2 simulation, whisker "
    "deprivation and baselines (ICLR 2025).",
    "barrel_snn.reproduce",
    devices=("cpu", "cuda"),
)


main = EXPERIMENT.main
