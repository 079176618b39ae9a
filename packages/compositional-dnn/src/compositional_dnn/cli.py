"""``compositional-dnn`` console script: ``compositional-dnn reproduce [--quick] [--seed N] [--out DIR]``."""

from __future__ import annotations

from paperkit import Experiment

EXPERIMENT = Experiment.lazy(
    "compositional-dnn",
    "Deep networks learn compositions h o g: AccNet vs shallow scaling laws (Jacot, Choi, Wen; ICLR 2025).",
    "compositional_dnn.reproduce",
    devices=("cpu", "cuda"),
)

main = EXPERIMENT.main
