"""Console script: ``lpca-metric-embed reproduce [--quick] [--seed N] [--out DIR] [--check]``.

The experiment (and torch) is imported only when a run starts, so ``--help``, ``--version`` and refused
arguments answer at once.
"""

from __future__ import annotations

from paperkit import Experiment

EXPERIMENT = Experiment.lazy(
    "lpca-metric-embed",
    "Exact embedding dimension of graphs: Euclidean metric (L2) vs logistic PCA, logarithmic "
    "search and KD-tree exactness check (Nakis, Holm, Fiehn, Mørup; ICLR 2025).",
    "lpca_metric_embed.reproduce",
    devices=("cpu", "cuda"),
)

main = EXPERIMENT.main
