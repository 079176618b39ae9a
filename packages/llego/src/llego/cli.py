"""``llego`` console script: ``llego reproduce [--quick] [--seed N] [--out DIR]``."""

from __future__ import annotations

from paperkit import Experiment

EXPERIMENT = Experiment.lazy(
    "llego",
    "LLEGO: LLM-guided genetic programming for decision trees, with GP and CART baselines (ICLR 2025).",
    "llego.reproduce",
    devices=("cpu", "cuda"),
)

main = EXPERIMENT.main
