"""``plnl`` console script: ``plnl reproduce [--quick] [--seed N] [--out DIR]``."""

from __future__ import annotations

from paperkit import Experiment

EXPERIMENT = Experiment.lazy(
    "plnl",
    "PLNL (positive label guessing + negative label enhancement) vs CLL baselines on digits.",
    "plnl.reproduce",
    devices=("cpu", "cuda"),
)

main = EXPERIMENT.main
