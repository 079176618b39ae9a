"""``bandit-neural`` console script: ``bandit-neural reproduce [--quick] [--seed N] [--out DIR] [--check]``.

The experiment (and torch) is imported only when a run starts, so ``--help``, ``--version`` and refused
arguments answer at once.
"""

from __future__ import annotations

from paperkit import Experiment

EXPERIMENT = Experiment.lazy(
    "bandit-neural",
    "Neural contextual dueling bandits NDB-UCB / NDB-TS vs linear dueling bandits (Verma et al.; ICLR 2025).",
    "bandit_neural.reproduce",
    devices=("cpu", "cuda"),
)


main = EXPERIMENT.main
