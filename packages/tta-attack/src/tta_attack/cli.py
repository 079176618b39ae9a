"""``tta-attack`` console script: ``tta-attack reproduce [--quick] [--seed N] [--out DIR]``."""

from __future__ import annotations

from paperkit import Experiment

EXPERIMENT = Experiment.lazy(
    "tta-attack",
    "FCA, a label-free poisoning attack on test-time adaptation, against DIA (Rifat et al.; ICLR 2025).",
    "tta_attack.reproduce",
    devices=("cpu", "cuda"),
)

main = EXPERIMENT.main
