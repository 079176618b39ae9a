"""lrnn_state_tracking: linear RNNs whose transitions have negative eigenvalues, and the state-tracking
tasks that need them.

Reproduces "Unlocking State-Tracking in Linear RNNs Through Negative Eigenvalues" (Grazzi, Siems, Zela,
Franke, Hutter, Pontil; ICLR 2025, arXiv 2411.12537).

Names are imported on first use (PEP 562), so that the console script answers ``--help`` and
``--version`` without importing torch. The public names are listed once, as the ``if TYPE_CHECKING:`` imports;
the experiment (``lrnn_state_tracking.reproduce``) is not part of the package's API.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import paperkit

if TYPE_CHECKING:  # the public names, once: type checkers read them, paperkit.public_api parses them
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

__getattr__, __dir__, __all__ = paperkit.public_api(__name__)

__version__ = paperkit.package_version("iclr25-lrnn-state-tracking")
