"""compositional_dnn: Matérn-GP compositions h o g, accordion networks and the scaling-law reproduction.

Reproduces "How DNNs break the Curse of Dimensionality: Compositionality and Symmetry Learning"
(Jacot, Choi, Wen; ICLR 2025; arXiv 2407.05664).
"""

from typing import TYPE_CHECKING

import paperkit

if TYPE_CHECKING:  # the public names, once: type checkers read them, paperkit.public_api parses them
    from compositional_dnn.analysis import decay_exponent, exponents_over_seeds
    from compositional_dnn.data import Composition, make_composition
    from compositional_dnn.kernels import CLOSED_FORM_NUS, matern, matern_kernel, rms_distance, sample_gp
    from compositional_dnn.methods import METHODS, Fit, matern_krr, run_method
    from compositional_dnn.models import MLP, AccNet, DeepMLP, ShallowNet
    from compositional_dnn.training import TrainLog, train_staged

__getattr__, __dir__, __all__ = paperkit.public_api(__name__)

__version__ = paperkit.package_version("iclr25-compositional-dnn")
