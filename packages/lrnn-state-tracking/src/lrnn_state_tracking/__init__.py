"""lrnn_state_tracking: linear RNNs whose transitions have negative eigenvalues, and the state-tracking
tasks that need them.

Reproduces "Unlocking State-Tracking in Linear RNNs Through Negative Eigenvalues" (Grazzi, Siems, Zela,
Franke, Hutter, Pontil; ICLR 2025, arXiv 2411.12537).

Names are imported on first use (PEP 562), so that the console script answers ``--help`` and
``--version`` without importing torch. The public names are listed once, in ``PUBLIC`` (name -> submodule);
the experiment (``lrnn_state_tracking.reproduce``) is not part of the package's API.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import paperkit

if TYPE_CHECKING:  # what type checkers read: the same names as PUBLIC (checked by the conformance suite)
    from lrnn_state_tracking.householder import (
        gh,
        gh_product,
        permutation_as_reflections,
        permutation_matrix,
        reflection_for_transposition,
    )
    from lrnn_state_tracking.layers import DeltaNet, DiagonalLRNN, GHProductRNN, eig_low
    from lrnn_state_tracking.models import LAYERS, LRNNLM
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

#: Every public name -> the submodule that defines it (the one table; __all__ and lazy loading follow).
PUBLIC = {
    "gh": "householder",
    "gh_product": "householder",
    "permutation_as_reflections": "householder",
    "permutation_matrix": "householder",
    "reflection_for_transposition": "householder",
    "DeltaNet": "layers",
    "DiagonalLRNN": "layers",
    "GHProductRNN": "layers",
    "eig_low": "layers",
    "LAYERS": "models",
    "LRNNLM": "models",
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
__getattr__, __dir__, __all__ = paperkit.public_api(__name__, PUBLIC, eager=("PUBLIC", "__version__"))

__version__ = paperkit.package_version("iclr25-lrnn-state-tracking")
