"""``synthdata-ggmi`` console script: ``synthdata-ggmi reproduce [--quick] [--seed N] [--out DIR]``."""

from __future__ import annotations

from collections.abc import Sequence

from paperkit import Experiment, reproduce_main

EXPERIMENT = Experiment.lazy(
    "synthdata-ggmi",
    "Synthetic data in LLM post-training, a reverse-bottleneck view: the GMM KL-gap simulation "
    "(Gan, Liu; ICLR 2025).",
    "synthdata_ggmi.reproduce",
    devices=("cpu", "cuda"),
)


def main(argv: Sequence[str] | None = None) -> int:
    return reproduce_main(EXPERIMENT, argv)
