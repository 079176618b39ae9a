"""bandit_neural: neural contextual dueling bandits (NDB-UCB, NDB-TS), linear baselines, binary feedback.

Reproduces "Neural Dueling Bandits: Preference-Based Optimization with Human Feedback" (Verma, Dai, Lin,
Jaillet, Low; ICLR 2025, arXiv 2407.17112). The public names are listed once, as the
``if TYPE_CHECKING:`` imports, and imported on first use, so that the console script answers ``--help``
and ``--version`` without importing torch; the experiment (``bandit_neural.reproduce``) is not part of
the package's API.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import paperkit

if TYPE_CHECKING:  # the public names, once: type checkers read them, paperkit.public_api parses them
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


__getattr__, __dir__, __all__ = paperkit.public_api(__name__)

__version__ = paperkit.package_version("iclr25-bandit-neural")
