"""``asb`` console script: ``asb reproduce [--quick] [--seed N] [--out DIR]``."""

from __future__ import annotations

from paperkit import Experiment

EXPERIMENT = Experiment.lazy(
    "asb",
    "Agent Security Bench on a tiny in-process backbone: attacks, defenses, ASR/PNA/NRP "
    "(Zhang et al.; ICLR 2025).",
    "asb.reproduce",
    devices=("cpu", "cuda"),
)

main = EXPERIMENT.main
