"""``rslqr`` console script: ``rslqr reproduce [--quick] [--seed N] [--out DIR] [--check]``."""

from __future__ import annotations

from collections.abc import Sequence

from paperkit import Experiment, reproduce_main

EXPERIMENT = Experiment.lazy(
    "rslqr",
    "Regret of least-squares learners for the episodic risk-sensitive LQR (Xu, Gao, He; ICLR 2025).",
    "rslqr.reproduce",
    devices=("cpu",),
)


def main(argv: Sequence[str] | None = None) -> int:
    return reproduce_main(EXPERIMENT, argv)
