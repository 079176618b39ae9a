"""bandit_neural: neural contextual dueling bandits (NDB-UCB, NDB-TS), linear baselines, binary feedback.

Reproduces "Neural Dueling Bandits: Preference-Based Optimization with Human Feedback" (Verma, Dai, Lin,
Jaillet, Low; ICLR 2025, arXiv 2407.17112).

Names are imported on first use (PEP 562), so that the console script answers ``--help`` and
``--version`` without importing torch.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING

import paperkit

if TYPE_CHECKING:
    from bandit_neural.algorithms import (
        ALGORITHMS,
        GLM_ALGORITHMS,
        DuelingBandit,
        GLMBandit,
        LinearDuelingTS,
        LinearDuelingUCB,
        LinearGLMTS,
        LinearGLMUCB,
        NeuralDuelingGreedy,
        NeuralDuelingTS,
        NeuralDuelingUCB,
        NeuralGLMTS,
        NeuralGLMUCB,
        RandomPair,
    )
    from bandit_neural.confidence import GramInverse
    from bandit_neural.envs import ContextualBinaryEnv, ContextualDuelingEnv, sigmoid
    from bandit_neural.models import LinearUtility, NeuralUtility, binary_loss, preference_loss
    from bandit_neural.nets import MLP, flat_grad, torch_device, values_and_grads
    from bandit_neural.run import RunLog, run_binary, run_dueling

_WHERE = {
    "ALGORITHMS": "algorithms",
    "GLM_ALGORITHMS": "algorithms",
    "DuelingBandit": "algorithms",
    "GLMBandit": "algorithms",
    "LinearDuelingTS": "algorithms",
    "LinearDuelingUCB": "algorithms",
    "LinearGLMTS": "algorithms",
    "LinearGLMUCB": "algorithms",
    "NeuralDuelingGreedy": "algorithms",
    "NeuralDuelingTS": "algorithms",
    "NeuralDuelingUCB": "algorithms",
    "NeuralGLMTS": "algorithms",
    "NeuralGLMUCB": "algorithms",
    "RandomPair": "algorithms",
    "GramInverse": "confidence",
    "ContextualBinaryEnv": "envs",
    "ContextualDuelingEnv": "envs",
    "sigmoid": "envs",
    "LinearUtility": "models",
    "NeuralUtility": "models",
    "binary_loss": "models",
    "preference_loss": "models",
    "MLP": "nets",
    "flat_grad": "nets",
    "values_and_grads": "nets",
    "torch_device": "nets",
    "RunLog": "run",
    "run_binary": "run",
    "run_dueling": "run",
}

try:
    __version__ = version("iclr25-bandit-neural")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0"

__all__ = [
    "ALGORITHMS",
    "GLM_ALGORITHMS",
    "MLP",
    "ContextualBinaryEnv",
    "ContextualDuelingEnv",
    "DuelingBandit",
    "GLMBandit",
    "GramInverse",
    "LinearDuelingTS",
    "LinearDuelingUCB",
    "LinearGLMTS",
    "LinearGLMUCB",
    "LinearUtility",
    "NeuralDuelingGreedy",
    "NeuralDuelingTS",
    "NeuralDuelingUCB",
    "NeuralGLMTS",
    "NeuralGLMUCB",
    "NeuralUtility",
    "RandomPair",
    "RunLog",
    "__version__",
    "binary_loss",
    "flat_grad",
    "preference_loss",
    "run_binary",
    "run_dueling",
    "sigmoid",
    "torch_device",
    "values_and_grads",
]

__getattr__, __dir__ = paperkit.lazy_exports(__name__, _WHERE)
