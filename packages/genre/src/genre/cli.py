"""``genre`` console script: ``genre reproduce [--quick] [--seed N] [--device D] [--out DIR] [--check]``.

The experiment (and torch) is imported only when a run starts, so ``--help``, ``--version`` and refused
arguments answer at once.
"""

from __future__ import annotations

from paperkit import Experiment

EXPERIMENT = Experiment.lazy(
    "genre",
    "GenRe generative recourse vs NNR, Wachter, Growing Spheres and ROAR on semi-synthetic "
    "moons and breast-cancer data (Garg, Nagalapatti, Sarawagi; ICLR 2025).",
    "genre.reproduce",
    devices=("cpu", "cuda"),
)

main = EXPERIMENT.main
