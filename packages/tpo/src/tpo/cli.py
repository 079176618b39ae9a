"""``tpo`` console script: ``tpo reproduce [--quick] [--seed N] [--device D] [--out DIR] [--check]``.

The experiment module (torch, transformers) is imported only when a run starts, so ``--help``,
``--version`` and argument errors answer at once.
"""

from __future__ import annotations

from paperkit import Experiment

EXPERIMENT = Experiment.lazy(
    "tpo",
    "Tree Preference Optimization vs DPO on arithmetic preference trees (Liao, Chu, Wang; ICLR 2025).",
    "tpo.reproduce",
    devices=("cpu", "cuda"),
)

main = EXPERIMENT.main
