"""``map-palette`` console script: ``map-palette reproduce [--quick] [--seed N] [--out DIR]``."""

from __future__ import annotations

from paperkit import Experiment

EXPERIMENT = Experiment.lazy(
    "map-palette",
    "MAP: multi-value alignment palettes solved by the dual; feasibility, sequential alignment, "
    "MAP decoding (ICLR 2025).",
    "map_palette.reproduce",
    devices=("cpu", "cuda"),
)

main = EXPERIMENT.main
