"""``tinymem`` console script: ``tinymem reproduce [--quick] [--seed N] [--device D] [--out DIR] [--check]``.

The experiment module (torch, transformers) is imported only when a run starts.
"""

from __future__ import annotations

from paperkit import Experiment

EXPERIMENT = Experiment.lazy(
    "tinymem",
    "TinyMem: memorisation mitigation (regularizers, fine-tuning, unlearning, BalancedSubnet) "
    "on tiny GPT-2 models (Sakarvadia et al.; ICLR 2025).",
    "tinymem.reproduce",
    devices=("cpu", "cuda"),
)


main = EXPERIMENT.main
