"""barrel_snn: a biologically constrained spiking model of the superficial mouse barrel column.

4,218 adaptive LIF neurons in 13 subtypes with anatomical connection probabilities, Dale's law and
fixed masks, trained with surrogate gradients in torch (a ``scale`` gives smaller copies), exported to
brian2 for simulation at full scale; synthetic whisker sweeps with the paper's spike encoding;
whisker deprivation; LSTM/GRU/CNN baselines.

Names are imported on first use (PEP 562), so the console script answers ``--help`` and ``--version``
without importing torch or brian2. The public names are listed once, as the ``if TYPE_CHECKING:`` imports;
the experiment (``barrel_snn.reproduce``) is not part of the package's API.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import paperkit

if TYPE_CHECKING:  # the public names, once: type checkers read them, paperkit.public_api parses them
    from barrel_snn.analysis import (
        anova_selectivity,
        average_ranks,
        constraint_violations,
        deprivation_curve,
        isi_cv,
        population_rates,
        population_table,
        spearman,
    )
    from barrel_snn.anatomy import P_REC, P_THAL, POPULATIONS, Population, build_masks, population_sizes
    from barrel_snn.baselines import CNN1D, GRUClassifier, LSTMClassifier
    from barrel_snn.brian import BrianRun, compare_with_torch, simulate, to_brian2
    from barrel_snn.data import deprive, encode_spikes, load_h5, make_synthetic_sweeps, spike_probabilities
    from barrel_snn.models import BarrelSNN, Recording, loss_fn
    from barrel_snn.neurons import ALIFCell, alif_step, spike_fn
    from barrel_snn.training import History, accuracy, predict, train

__getattr__, __dir__, __all__ = paperkit.public_api(__name__)

__version__ = paperkit.package_version("iclr25-barrel-snn")
