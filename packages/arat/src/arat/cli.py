"""``arat`` console script: ``arat reproduce [--quick] [--seed N] [--out DIR]``."""

from __future__ import annotations

from paperkit import Experiment

EXPERIMENT = Experiment.lazy(
    "arat",
    "ARAT (asymmetric invariance + split BN) vs PGD-AT, TRADES and naive invariance on digits (ICLR 2025).",
    "arat.reproduce",
    devices=("cpu", "cuda"),
)

main = EXPERIMENT.main
