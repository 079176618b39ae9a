"""attention_hypernet: multi-head attention as a hypernetwork, HYLA, and the fuzzy-logic and sraven tasks.

Reproduces "Attention as a Hypernetwork" (Schug, Kobayashi, Akram, Sacramento, Pascanu; ICLR 2025;
arXiv 2406.05816) in PyTorch; the official code is JAX (github.com/smonsays/hypernetwork-attention).
"""

from typing import TYPE_CHECKING

import paperkit

if TYPE_CHECKING:  # the public names, once: type checkers read them, paperkit.public_api parses them
    from attention_hypernet.attention import (
        NORMS,
        VALUE_NETS,
        GeneratedNetwork,
        HyperAttention,
        apply_generated,
        mix_values,
        normalise_scores,
        relative_position_bucket,
        rms_head,
    )
    from attention_hypernet.logic import FuzzyLogic, LogicBatch, fuzzy_or_of_ands
    from attention_hypernet.methods import METHODS, MixerRun, run_method, run_methods
    from attention_hypernet.probe import last_pair_codes, logic_latent_r2, ridge_r2
    from attention_hypernet.sraven import (
        RULES,
        SRaven,
        SRavenBatch,
        ambiguity_count,
        rule_answers,
        rule_grids,
    )
    from attention_hypernet.stacked import StackedTransformer
    from attention_hypernet.training import (
        TrainConfig,
        build_model,
        evaluate,
        lr_at,
        task_loss,
        train,
        train_stacked,
    )
    from attention_hypernet.transformer import MIXERS, RelativePositionBias, Transformer

__getattr__, __dir__, __all__ = paperkit.public_api(__name__)

__version__ = paperkit.package_version("iclr25-attention-hypernet")
