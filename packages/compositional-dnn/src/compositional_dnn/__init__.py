"""compositional_dnn: Matérn-GP compositions h o g, accordion networks and the scaling-law reproduction.

Reproduces "How DNNs break the Curse of Dimensionality: Compositionality and Symmetry Learning"
(Jacot, Choi, Wen; ICLR 2025; arXiv 2407.05664).
"""

from typing import TYPE_CHECKING

import paperkit

PUBLIC = {
    "CLOSED_FORM_NUS": "kernels",
    "matern": "kernels",
    "matern_kernel": "kernels",
    "rms_distance": "kernels",
    "sample_gp": "kernels",
    "Composition": "data",
    "make_composition": "data",
    "MLP": "models",
    "AccNet": "models",
    "ShallowNet": "models",
    "DeepMLP": "models",
    "TrainLog": "training",
    "train_staged": "training",
    "METHODS": "methods",
    "Fit": "methods",
    "matern_krr": "methods",
    "run_method": "methods",
    "decay_exponent": "analysis",
    "exponents_over_seeds": "analysis",
}
__getattr__, __dir__, __all__ = paperkit.public_api(__name__, PUBLIC)

if TYPE_CHECKING:
    from compositional_dnn.analysis import decay_exponent, exponents_over_seeds  # noqa: F401
    from compositional_dnn.data import Composition, make_composition  # noqa: F401
    from compositional_dnn.kernels import CLOSED_FORM_NUS, matern, matern_kernel, rms_distance, sample_gp  # noqa: F401
    from compositional_dnn.methods import METHODS, Fit, matern_krr, run_method  # noqa: F401
    from compositional_dnn.models import MLP, AccNet, DeepMLP, ShallowNet  # noqa: F401
    from compositional_dnn.training import TrainLog, train_staged  # noqa: F401

__version__ = paperkit.package_version("iclr25-compositional-dnn")
