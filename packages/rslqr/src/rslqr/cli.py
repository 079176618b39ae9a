"""``rslqr`` console script: ``rslqr reproduce [--quick] [--seed N] [--out DIR] [--check]``."""

from __future__ import annotations

from paperkit import Experiment

EXPERIMENT = Experiment.lazy(
    "rslqr",
    "Regret of least-squares learners for the episodic risk-sensitive LQR (Xu, Gao, He; ICLR 2025).",
    "rslqr.reproduce",
    devices=("cpu",),
)

main = EXPERIMENT.main
