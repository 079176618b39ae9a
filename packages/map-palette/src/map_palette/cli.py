"""``map-palette`` console script: ``map-palette reproduce [--quick] [--seed N] [--out DIR]``."""

from __future__ import annotations

from collections.abc import Sequence

from paperkit import Experiment, reproduce_main

EXPERIMENT = Experiment.lazy(
    "map-palette",
    "MAP: multi-value alignment palettes solved by the dual; feasibility, sequential alignment, MAP decoding (ICLR 2025).",
    "map_palette.reproduce",
    devices=("cpu", "cuda"),
)


def main(argv: Sequence[str] | None = None) -> int:
    return reproduce_main(EXPERIMENT, argv)
