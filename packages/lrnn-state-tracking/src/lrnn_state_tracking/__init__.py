"""lrnn_state_tracking: linear RNNs whose transitions have negative eigenvalues, and the state-tracking
tasks that need them.

Reproduces "Unlocking State-Tracking in Linear RNNs Through Negative Eigenvalues" (Grazzi, Siems, Zela,
Franke, Hutter, Pontil; ICLR 2025, arXiv 2411.12537).

Names are imported on first use (PEP 562), so that the console script answers ``--help`` and
``--version`` without importing torch.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING

import paperkit

if TYPE_CHECKING:
    from lrnn_state_tracking.householder import (
        gh,
        gh_product,
        permutation_as_reflections,
        permutation_matrix,
        reflection_for_transposition,
    )
    from lrnn_state_tracking.layers import DeltaNet, DiagonalLRNN, GHProductRNN, eig_low
    from lrnn_state_tracking.model import LAYERS, LRNNLM
    from lrnn_state_tracking.oracles import parity_deltanet_oracle, parity_diag_oracle
    from lrnn_state_tracking.scan import (
        delta_rule_chunked,
        delta_rule_sequential,
        scan_diagonal,
        scan_diagonal_sequential,
    )
    from lrnn_state_tracking.tasks import (
        TASKS,
        Batch,
        Task,
        count_mod,
        eval_mod_arith,
        get_task,
        mod_arith,
        parity,
        s3_word,
    )
    from lrnn_state_tracking.training import (
        History,
        LengthAccuracy,
        accuracy_by_length,
        scaled_accuracy,
        train,
    )

_WHERE = {
    "gh": "householder",
    "gh_product": "householder",
    "permutation_as_reflections": "householder",
    "permutation_matrix": "householder",
    "reflection_for_transposition": "householder",
    "DeltaNet": "layers",
    "DiagonalLRNN": "layers",
    "GHProductRNN": "layers",
    "eig_low": "layers",
    "LAYERS": "model",
    "LRNNLM": "model",
    "parity_deltanet_oracle": "oracles",
    "parity_diag_oracle": "oracles",
    "delta_rule_chunked": "scan",
    "delta_rule_sequential": "scan",
    "scan_diagonal": "scan",
    "scan_diagonal_sequential": "scan",
    "TASKS": "tasks",
    "Batch": "tasks",
    "Task": "tasks",
    "count_mod": "tasks",
    "eval_mod_arith": "tasks",
    "get_task": "tasks",
    "mod_arith": "tasks",
    "parity": "tasks",
    "s3_word": "tasks",
    "History": "training",
    "LengthAccuracy": "training",
    "accuracy_by_length": "training",
    "scaled_accuracy": "training",
    "train": "training",
}

try:
    __version__ = version("iclr25-lrnn-state-tracking")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0"

__all__ = [
    "LAYERS",
    "LRNNLM",
    "TASKS",
    "Batch",
    "DeltaNet",
    "DiagonalLRNN",
    "GHProductRNN",
    "History",
    "LengthAccuracy",
    "Task",
    "__version__",
    "accuracy_by_length",
    "count_mod",
    "delta_rule_chunked",
    "delta_rule_sequential",
    "eig_low",
    "eval_mod_arith",
    "get_task",
    "gh",
    "gh_product",
    "mod_arith",
    "parity",
    "parity_deltanet_oracle",
    "parity_diag_oracle",
    "permutation_as_reflections",
    "permutation_matrix",
    "reflection_for_transposition",
    "s3_word",
    "scaled_accuracy",
    "scan_diagonal",
    "scan_diagonal_sequential",
    "train",
]

__getattr__, __dir__ = paperkit.lazy_exports(__name__, _WHERE)
