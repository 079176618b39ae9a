"""``disk-dp`` console script: ``disk-dp reproduce [--quick] [--seed N] [--device D] [--out DIR] [--check]``.

The experiment (and torch) is imported only when a run starts, so ``--help``, ``--version`` and refused
arguments answer at once.
"""

from __future__ import annotations

from paperkit import Experiment

EXPERIMENT = Experiment.lazy(
    "disk-dp",
    "DiSK: Kalman-filtered DP optimisers vs DP-SGD / DP-Adam at equal (epsilon, delta) "
    "(Zhang et al.; ICLR 2025).",
    "disk_dp.reproduce",
    devices=("cpu", "cuda"),
)


main = EXPERIMENT.main
