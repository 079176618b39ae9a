"""barrel_snn: a biologically constrained spiking model of the superficial mouse barrel column.

4,218 adaptive LIF neurons in 13 subtypes with anatomical connection probabilities, Dale's law and
fixed masks, trained with surrogate gradients in torch (a ``scale`` gives smaller copies), exported to
brian2 for simulation at full scale; synthetic whisker sweeps with the paper's spike encoding;
whisker deprivation; LSTM/GRU/CNN baselines.

Names are imported on first use (PEP 562), so the console script answers ``--help`` and ``--version``
without importing torch or brian2.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING

import paperkit

if TYPE_CHECKING:
    from barrel_snn.analysis import (
        anova_selectivity,
        constraint_violations,
        deprivation_curve,
        isi_cv,
        population_rates,
        population_table,
    )
    from barrel_snn.anatomy import (
        P_REC,
        P_THAL,
        POPULATIONS,
        Population,
        build_masks,
        population_sizes,
    )
    from barrel_snn.baselines import CNN1D, GRUClassifier, LSTMClassifier
    from barrel_snn.brian import BrianRun, compare_with_torch, simulate, to_brian2
    from barrel_snn.data import deprive, encode_spikes, load_h5, make_synthetic_sweeps, spike_probabilities
    from barrel_snn.model import BarrelSNN, Recording, loss_fn
    from barrel_snn.neurons import ALIFCell, alif_step, spike_fn
    from barrel_snn.training import History, accuracy, predict, train

_WHERE = {
    "anova_selectivity": "analysis",
    "constraint_violations": "analysis",
    "deprivation_curve": "analysis",
    "isi_cv": "analysis",
    "population_rates": "analysis",
    "population_table": "analysis",
    "POPULATIONS": "anatomy",
    "P_REC": "anatomy",
    "P_THAL": "anatomy",
    "Population": "anatomy",
    "build_masks": "anatomy",
    "population_sizes": "anatomy",
    "CNN1D": "baselines",
    "GRUClassifier": "baselines",
    "LSTMClassifier": "baselines",
    "BrianRun": "brian",
    "compare_with_torch": "brian",
    "simulate": "brian",
    "to_brian2": "brian",
    "deprive": "data",
    "encode_spikes": "data",
    "load_h5": "data",
    "make_synthetic_sweeps": "data",
    "spike_probabilities": "data",
    "BarrelSNN": "model",
    "Recording": "model",
    "loss_fn": "model",
    "ALIFCell": "neurons",
    "alif_step": "neurons",
    "spike_fn": "neurons",
    "History": "training",
    "accuracy": "training",
    "predict": "training",
    "train": "training",
}

try:
    __version__ = version("iclr25-barrel-snn")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0"

__all__ = [
    "CNN1D",
    "POPULATIONS",
    "P_REC",
    "P_THAL",
    "ALIFCell",
    "BarrelSNN",
    "BrianRun",
    "GRUClassifier",
    "History",
    "LSTMClassifier",
    "Population",
    "Recording",
    "__version__",
    "accuracy",
    "alif_step",
    "anova_selectivity",
    "build_masks",
    "compare_with_torch",
    "constraint_violations",
    "deprivation_curve",
    "deprive",
    "encode_spikes",
    "isi_cv",
    "load_h5",
    "loss_fn",
    "make_synthetic_sweeps",
    "population_rates",
    "population_sizes",
    "population_table",
    "predict",
    "simulate",
    "spike_fn",
    "spike_probabilities",
    "to_brian2",
    "train",
]

__getattr__, __dir__ = paperkit.lazy_exports(__name__, _WHERE)
