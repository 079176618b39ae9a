"""``attention-hypernet`` console script: ``attention-hypernet reproduce [--quick] [--seed N] [--out D]``."""

from __future__ import annotations

from paperkit import Experiment

EXPERIMENT = Experiment.lazy(
    "attention-hypernet",
    "Attention as a hypernetwork: HYLA vs linear and softmax attention, fuzzy logic and sraven (ICLR 2025).",
    "attention_hypernet.reproduce",
    devices=("cpu", "cuda"),
)

main = EXPERIMENT.main
