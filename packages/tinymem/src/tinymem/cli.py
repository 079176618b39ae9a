"""``tinymem`` console script: ``tinymem reproduce [--quick] [--seed N] [--device D] [--out DIR] [--check]``.

The experiment module (torch, transformers) is imported only when a run starts.
"""

from __future__ import annotations

from collections.abc import Sequence

from paperkit import Experiment, reproduce_main

EXPERIMENT = Experiment.lazy(
    "tinymem",
    "TinyMem: memorisation mitigation (regularizers, fine-tuning, unlearning, BalancedSubnet) "
    "on tiny GPT-2 models (Sakarvadia et al.; ICLR 2025).",
    "tinymem.reproduce",
    devices=("cpu", "cuda"),
)


def main(argv: Sequence[str] | None = None) -> int:
    return reproduce_main(EXPERIMENT, argv)
