"""``video-brain-rsa`` console script: ``video-brain-rsa reproduce [--quick] [--seed N] [--out DIR]``."""

from __future__ import annotations

from paperkit import Experiment

EXPERIMENT = Experiment.lazy(
    "video-brain-rsa",
    "RSA of tiny video models against synthetic brains watching videos (Sartzetaki et al.; ICLR 2025).",
    "video_brain_rsa.reproduce",
    devices=("cpu", "cuda"),
)

main = EXPERIMENT.main
