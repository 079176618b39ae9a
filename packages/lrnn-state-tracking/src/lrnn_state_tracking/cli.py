"""``lrnn-state-tracking`` console script: ``lrnn-state-tracking reproduce [--quick] [--seed N] [--out DIR]
[--check]``.

The experiment (and torch) is imported only when a run starts, so ``--help``, ``--version`` and refused
arguments answer at once.
"""

from __future__ import annotations

from paperkit import Experiment

EXPERIMENT = Experiment.lazy(
    "lrnn-state-tracking",
    "Linear RNNs with eigenvalues in [-1,1] vs [0,1] on parity and state tracking "
    "(Grazzi et al.; ICLR 2025).",
    "lrnn_state_tracking.reproduce",
    devices=("cpu", "cuda"),
)


main = EXPERIMENT.main
