"""``synthdata-ggmi`` console script: ``synthdata-ggmi reproduce [--quick] [--seed N] [--out DIR]``."""

from __future__ import annotations

from paperkit import Experiment

EXPERIMENT = Experiment.lazy(
    "synthdata-ggmi",
    "Synthetic data in LLM post-training, a reverse-bottleneck view: the GMM KL-gap simulation "
    "(Gan, Liu; ICLR 2025).",
    "synthdata_ggmi.reproduce",
    devices=("cpu", "cuda"),
)


main = EXPERIMENT.main
