"""``multitp`` console script: ``multitp reproduce [--quick] [--seed N] [--out DIR]``."""

from __future__ import annotations

from paperkit import Experiment

EXPERIMENT = Experiment.lazy(
    "multitp",
    "Multilingual trolley problems: a tiny LM's preferences per synthetic language (Jin et al.; ICLR 2025).",
    "multitp.reproduce",
    devices=("cpu", "cuda"),
)

main = EXPERIMENT.main
