"""bandit_neural: neural contextual dueling bandits (NDB-UCB, NDB-TS), linear baselines, binary feedback.

Reproduces "Neural Dueling Bandits: Preference-Based Optimization with Human Feedback" (Verma, Dai, Lin,
Jaillet, Low; ICLR 2025, arXiv 2407.17112). The public names are listed once, in ``PUBLIC`` (name ->
submodule), and imported on first use, so that the console script answers ``--help`` and ``--version``
without importing torch; the experiment (``bandit_neural.reproduce``) is not part of the package's API.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import paperkit

if TYPE_CHECKING:  # what type checkers read: the same names as _MODULES (checked by the conformance suite)
    from bandit_neural.algorithms import (
        ALGORITHMS as ALGORITHMS,
    )
    from bandit_neural.algorithms import (
        GLM_ALGORITHMS as GLM_ALGORITHMS,
    )
    from bandit_neural.algorithms import (
        DuelingBandit as DuelingBandit,
    )
    from bandit_neural.algorithms import (
        GLMBandit as GLMBandit,
    )
    from bandit_neural.algorithms import (
        LinearDuelingTS as LinearDuelingTS,
    )
    from bandit_neural.algorithms import (
        LinearDuelingUCB as LinearDuelingUCB,
    )
    from bandit_neural.algorithms import (
        LinearGLMTS as LinearGLMTS,
    )
    from bandit_neural.algorithms import (
        LinearGLMUCB as LinearGLMUCB,
    )
    from bandit_neural.algorithms import (
        NeuralDuelingGreedy as NeuralDuelingGreedy,
    )
    from bandit_neural.algorithms import (
        NeuralDuelingTS as NeuralDuelingTS,
    )
    from bandit_neural.algorithms import (
        NeuralDuelingUCB as NeuralDuelingUCB,
    )
    from bandit_neural.algorithms import (
        NeuralGLMTS as NeuralGLMTS,
    )
    from bandit_neural.algorithms import (
        NeuralGLMUCB as NeuralGLMUCB,
    )
    from bandit_neural.algorithms import (
        RandomPair as RandomPair,
    )
    from bandit_neural.confidence import GramInverse as GramInverse
    from bandit_neural.envs import (
        ContextualBinaryEnv as ContextualBinaryEnv,
    )
    from bandit_neural.envs import (
        ContextualDuelingEnv as ContextualDuelingEnv,
    )
    from bandit_neural.envs import (
        sigmoid as sigmoid,
    )
    from bandit_neural.models import (
        LinearUtility as LinearUtility,
    )
    from bandit_neural.models import (
        NeuralUtility as NeuralUtility,
    )
    from bandit_neural.models import (
        binary_loss as binary_loss,
    )
    from bandit_neural.models import (
        preference_loss as preference_loss,
    )
    from bandit_neural.nets import (
        MLP as MLP,
    )
    from bandit_neural.nets import (
        flat_grad as flat_grad,
    )
    from bandit_neural.nets import (
        torch_device as torch_device,
    )
    from bandit_neural.nets import (
        values_and_grads as values_and_grads,
    )
    from bandit_neural.run import RunLog as RunLog
    from bandit_neural.run import run_binary as run_binary
    from bandit_neural.run import run_dueling as run_dueling

_MODULES = {
    "algorithms": (
        "ALGORITHMS",
        "DuelingBandit",
        "GLMBandit",
        "GLM_ALGORITHMS",
        "LinearDuelingTS",
        "LinearDuelingUCB",
        "LinearGLMTS",
        "LinearGLMUCB",
        "NeuralDuelingGreedy",
        "NeuralDuelingTS",
        "NeuralDuelingUCB",
        "NeuralGLMTS",
        "NeuralGLMUCB",
        "RandomPair",
    ),
    "confidence": ("GramInverse",),
    "envs": ("ContextualBinaryEnv", "ContextualDuelingEnv", "sigmoid"),
    "models": ("LinearUtility", "NeuralUtility", "binary_loss", "preference_loss"),
    "nets": ("MLP", "flat_grad", "torch_device", "values_and_grads"),
    "run": ("RunLog", "run_binary", "run_dueling"),
}
#: Every public name -> the submodule that defines it (the one table; __all__ and lazy loading follow).
PUBLIC = {name: module for module, names in _MODULES.items() for name in names}

__getattr__, __dir__, __all__ = paperkit.public_api(__name__, PUBLIC, eager=("PUBLIC", "__version__"))

__version__ = paperkit.package_version("iclr25-bandit-neural")
