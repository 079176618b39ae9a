"""``deep-fourier`` console script: ``deep-fourier reproduce [--quick] [--seed N] [--out DIR] [--check]``."""

from __future__ import annotations

from paperkit import Experiment

EXPERIMENT = Experiment.lazy(
    "deep-fourier",
    "Deep Fourier features vs ReLU under loss of plasticity (Lewandowski, Schuurmans, Machado; ICLR 2025).",
    "deep_fourier.reproduce",
    devices=("cpu", "cuda"),
)

main = EXPERIMENT.main
