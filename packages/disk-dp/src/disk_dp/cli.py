"""``disk-dp`` console script: ``disk-dp reproduce [--quick] [--seed N] [--device D] [--out DIR] [--check]``.

The experiment (and torch) is imported only when a run starts, so ``--help``, ``--version`` and refused
arguments answer at once.
"""

from __future__ import annotations

from collections.abc import Sequence

from paperkit import Experiment, reproduce_main

EXPERIMENT = Experiment.lazy(
    "disk-dp",
    "DiSK: Kalman-filtered DP optimisers vs DP-SGD / DP-Adam at equal (epsilon, delta) "
    "(Zhang et al.; ICLR 2025).",
    "disk_dp.reproduce",
    devices=("cpu", "cuda"),
)


def main(argv: Sequence[str] | None = None) -> int:
    return reproduce_main(EXPERIMENT, argv)
