"""``tpo`` console script: ``tpo reproduce [--quick] [--seed N] [--device D] [--out DIR] [--check]``.

The experiment module (torch, transformers) is imported only when a run starts, so ``--help``,
``--version`` and argument errors answer at once.
"""

from __future__ import annotations

from collections.abc import Sequence

from paperkit import Experiment, reproduce_main

EXPERIMENT = Experiment.lazy(
    "tpo",
    "Tree Preference Optimization vs DPO on arithmetic preference trees (Liao, Chu, Wang; ICLR 2025).",
    "tpo.reproduce",
    devices=("cpu", "cuda"),
)


def main(argv: Sequence[str] | None = None) -> int:
    return reproduce_main(EXPERIMENT, argv)
