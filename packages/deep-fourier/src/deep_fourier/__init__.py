"""deep_fourier: deep Fourier features (sine/cosine pairs) for plastic continual learning.

Reproduces "Plastic Learning with Deep Fourier Features" (Lewandowski, Schuurmans, Machado; ICLR 2025,
arXiv 2410.20634) at small scale on scikit-learn's digits, on :mod:`paperkit.vision`. The public names are
listed once, as the ``if TYPE_CHECKING:`` imports, and imported on first use; the experiment
(``deep_fourier.reproduce``) is not part of the package's API.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import paperkit

if TYPE_CHECKING:  # the public names, once: type checkers read them, paperkit.public_api parses them
    from deep_fourier.layers import (
        WIDTH_MODES,
        CReLU,
        DFFConv2d,
        DFFLinear,
        FourierActivation,
        Sine,
        pre_activations,
    )
    from deep_fourier.methods import METHODS, MethodInfo, run_method
    from deep_fourier.metrics import (
        average_online_accuracy,
        dead_unit_fraction,
        effective_rank,
        hidden_features,
    )
    from deep_fourier.models import ACTIVATIONS, ActivationSpec, convert_activations, network
    from deep_fourier.regularizers import REGULARIZERS, l2, l2_init, penalty, shrink_perturb
    from deep_fourier.streams import STREAMS, Task, make_stream
    from deep_fourier.training import History, train_continual

__getattr__, __dir__, __all__ = paperkit.public_api(__name__)

__version__ = paperkit.package_version("iclr25-deep-fourier")
