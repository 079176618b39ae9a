"""``aihf`` console script: ``aihf reproduce [--quick] [--seed N] [--out DIR] [--check]``."""

from __future__ import annotations

from collections.abc import Sequence

from paperkit import Experiment, reproduce_main

EXPERIMENT = Experiment.lazy(
    "aihf",
    "AIHF: joint reward and policy learning from demonstrations and preferences vs RLHF, "
    "ML-IRL and BC (Li et al.; ICLR 2025).",
    "aihf.reproduce",
    devices=("cpu",),
)


def main(argv: Sequence[str] | None = None) -> int:
    return reproduce_main(EXPERIMENT, argv)
