"""``sebra`` console script: ``sebra reproduce [--quick] [--seed N] [--out DIR]``."""

from __future__ import annotations

from paperkit import Experiment

EXPERIMENT = Experiment.lazy(
    "sebra",
    "Sebra: self-guided bias ranking and rank-aware contrastive debiasing (Kappiyath et al.; ICLR 2025).",
    "sebra.reproduce",
    devices=("cpu", "cuda"),
)

main = EXPERIMENT.main
