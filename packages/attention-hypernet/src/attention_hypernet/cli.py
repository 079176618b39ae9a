"""``attention-hypernet`` console script: ``attention-hypernet reproduce [--quick] [--seed N] [--out DIR]``."""

from __future__ import annotations

from collections.abc import Sequence

from paperkit import Experiment, reproduce_main

EXPERIMENT = Experiment.lazy(
    "attention-hypernet",
    "Attention as a hypernetwork: HYLA vs linear and softmax attention on fuzzy logic and sraven (ICLR 2025).",
    "attention_hypernet.reproduce",
    devices=("cpu", "cuda"),
)


def main(argv: Sequence[str] | None = None) -> int:
    return reproduce_main(EXPERIMENT, argv)
