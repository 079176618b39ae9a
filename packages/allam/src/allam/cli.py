"""``allam`` console script: ``allam reproduce [--quick] [--seed N] [--out DIR]``."""

from __future__ import annotations

from paperkit import Experiment

EXPERIMENT = Experiment.lazy(
    "allam",
    "Second-language acquisition by vocabulary expansion, replay and parallel data (ALLaM; ICLR 2025).",
    "allam.reproduce",
    devices=("cpu", "cuda"),
)

main = EXPERIMENT.main
