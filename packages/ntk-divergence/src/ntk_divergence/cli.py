"""``ntk-divergence`` console script: ``ntk-divergence reproduce [--quick] [--seed N] [--out DIR]``."""

from __future__ import annotations

from collections.abc import Sequence

from paperkit import Experiment, reproduce_main

EXPERIMENT = Experiment.lazy(
    "ntk-divergence",
    "Divergence of the empirical NTK under cross-entropy vs lazy MSE training (Yu, Tian, Chen; ICLR 2025).",
    "ntk_divergence.reproduce",
    devices=("cpu", "cuda"),
)


def main(argv: Sequence[str] | None = None) -> int:
    return reproduce_main(EXPERIMENT, argv)
