"""``intervention-graph`` console script: ``intervention-graph reproduce [--quick] [--seed N] [--out D]``."""

from __future__ import annotations

from paperkit import Experiment

EXPERIMENT = Experiment.lazy(
    "intervention-graph",
    "Intervention graphs run locally and on a loopback server vs hand-written hooks (NNsight/NDIF; ICLR 25).",
    "intervention_graph.reproduce",
    devices=("cpu", "cuda"),
)

main = EXPERIMENT.main
