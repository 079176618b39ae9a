"""``ntk-divergence`` console script: ``ntk-divergence reproduce [--quick] [--seed N] [--out DIR]``."""

from __future__ import annotations

from paperkit import Experiment

EXPERIMENT = Experiment.lazy(
    "ntk-divergence",
    "Divergence of the empirical NTK under cross-entropy vs lazy MSE training (Yu, Tian, Chen; ICLR 2025).",
    "ntk_divergence.reproduce",
    devices=("cpu", "cuda"),
)

main = EXPERIMENT.main
