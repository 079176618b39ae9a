"""The headline experiment: parity (and report-only mod-3 / mod-5) with eigenvalue range [0, 1] vs [−1, 1].

Every (block, model, seed) run trains a fresh model on lengths 3–40 (answer-only loss) and evaluates it on
fresh sequences of lengths 41–256 (length generalisation), in float32. The closed-form oracles are run
at length 10,000.

- ``config``: Config (quick/full/smoke), Block (one block of runs), RunCase, Margins, MODELS.
- ``run``: ``run(config, seed=..., device=...)`` -> paperkit Report; ``run_cases`` -> typed Records;
  ``run_one`` (one trained model), ``build_model``, ``oracle_accuracy``.
- ``claims``: every claim's text, source and margin. ``tables``, ``plots``: rendering from records.
"""

from lrnn_state_tracking.reproduce.config import MODELS, SHORT_PARITY, Block, Config, Margins, RunCase
from lrnn_state_tracking.reproduce.plots import plots
from lrnn_state_tracking.reproduce.run import (
    Records,
    RunRecord,
    build_model,
    oracle_accuracy,
    run,
    run_cases,
    run_one,
)

__all__ = [
    "MODELS",
    "SHORT_PARITY",
    "Block",
    "Config",
    "Margins",
    "Records",
    "RunCase",
    "RunRecord",
    "build_model",
    "oracle_accuracy",
    "plots",
    "run",
    "run_cases",
    "run_one",
]
