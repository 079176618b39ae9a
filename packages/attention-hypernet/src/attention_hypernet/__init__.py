"""attention_hypernet: multi-head attention as a hypernetwork, HYLA, and the fuzzy-logic and sraven tasks.

Reproduces "Attention as a Hypernetwork" (Schug, Kobayashi, Akram, Sacramento, Pascanu; ICLR 2025;
arXiv 2406.05816) in PyTorch; the official code is JAX (github.com/smonsays/hypernetwork-attention).
"""

from typing import TYPE_CHECKING

import paperkit

PUBLIC = {
    "HyperAttention": "attention",
    "GeneratedNetwork": "attention",
    "apply_generated": "attention",
    "normalise_scores": "attention",
    "mix_values": "attention",
    "rms_head": "attention",
    "relative_position_bucket": "attention",
    "NORMS": "attention",
    "VALUE_NETS": "attention",
    "MIXERS": "transformer",
    "Transformer": "transformer",
    "RelativePositionBias": "transformer",
    "FuzzyLogic": "logic",
    "LogicBatch": "logic",
    "fuzzy_or_of_ands": "logic",
    "SRaven": "sraven",
    "SRavenBatch": "sraven",
    "RULES": "sraven",
    "rule_grids": "sraven",
    "rule_answers": "sraven",
    "ambiguity_count": "sraven",
    "TrainConfig": "training",
    "build_model": "training",
    "train": "training",
    "train_stacked": "training",
    "StackedTransformer": "stacked",
    "evaluate": "training",
    "lr_at": "training",
    "task_loss": "training",
    "ridge_r2": "probe",
    "last_pair_codes": "probe",
    "logic_latent_r2": "probe",
    "METHODS": "methods",
    "MixerRun": "methods",
    "run_method": "methods",
    "run_methods": "methods",
}
__getattr__, __dir__, __all__ = paperkit.public_api(__name__, PUBLIC)

if TYPE_CHECKING:
    from attention_hypernet.attention import (  # noqa: F401
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
    from attention_hypernet.logic import FuzzyLogic, LogicBatch, fuzzy_or_of_ands  # noqa: F401
    from attention_hypernet.methods import METHODS, MixerRun, run_method, run_methods  # noqa: F401
    from attention_hypernet.probe import last_pair_codes, logic_latent_r2, ridge_r2  # noqa: F401
    from attention_hypernet.sraven import (  # noqa: F401
        RULES,
        SRaven,
        SRavenBatch,
        ambiguity_count,
        rule_answers,
        rule_grids,
    )
    from attention_hypernet.stacked import StackedTransformer  # noqa: F401
    from attention_hypernet.training import (  # noqa: F401
        TrainConfig,
        build_model,
        evaluate,
        lr_at,
        task_loss,
        train,
        train_stacked,
    )
    from attention_hypernet.transformer import MIXERS, RelativePositionBias, Transformer  # noqa: F401

__version__ = paperkit.package_version("iclr25-attention-hypernet")
