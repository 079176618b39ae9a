"""``aihf`` console script: ``aihf reproduce [--quick] [--seed N] [--out DIR] [--check]``."""

from __future__ import annotations

from paperkit import Experiment

EXPERIMENT = Experiment.lazy(
    "aihf",
    "AIHF: joint reward and policy learning from demonstrations and preferences vs RLHF, "
    "ML-IRL and BC (Li et al.; ICLR 2025).",
    "aihf.reproduce",
    devices=("cpu",),
)

main = EXPERIMENT.main
