"""tinymem: TinyMem models that memorise, and 17 ways to make them forget (Sakarvadia et al., ICLR 2025).

Three lines::

    data = tinymem.build_data(tinymem.DataConfig(), seed=0)
    model = tinymem.build_model(tinymem.tinymem_config(n_layer=2, n_embd=64))
    tinymem.train_lm(model, data.train, tinymem.TrainSpec(epochs=40, lr=5e-3))
    edited = tinymem.balanced_subnet(model, data.noised, data.clean_train, ratio=0.01)
"""

from __future__ import annotations

import importlib
from importlib import metadata
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tinymem.data import (
        BOS,
        EOS,
        PAD,
        SPACE,
        VOCAB_SIZE,
        DataConfig,
        TinyMemData,
        add_noise,
        build_data,
        detokenize,
        make_sequences,
        noise_in_window,
        tokenize,
        tokenize_batch,
    )
    from tinymem.methods import METHODS, UNLEARNING, Method, MitigationContext, select_best
    from tinymem.metrics import (
        MemResult,
        greedy_continuation,
        percent_memorized,
        perplexity,
        token_accuracy,
        token_losses,
    )
    from tinymem.model import build_model, mlp_layers, n_params, tinymem_config
    from tinymem.regularizers import (
        ExampleTiedDropout,
        LossTruncation,
        finalize_example_tied,
        spectral_norm,
        spectral_norm_penalty,
    )
    from tinymem.train import TrainSpec, finetune, train_lm
    from tinymem.unlearn import (
        EmpiricalBlockFisherInverse,
        GetSubnet,
        SupermaskProjection,
        ablate_neurons,
        activation_scores,
        balanced_subnet,
        balanced_subnet_loss,
        durable,
        durable_aggregate,
        get_subnet,
        greedy,
        hard_concrete_scores,
        integrated_gradients_scores,
        second_order,
        slimming_scores,
        subnet,
        zero_out_scores,
    )

# Names resolve on first use, so `import tinymem` (and the `tinymem` command line) does not load torch.
_WHERE: dict[str, str] = {
    "BOS": "tinymem.data",
    "DataConfig": "tinymem.data",
    "EOS": "tinymem.data",
    "EmpiricalBlockFisherInverse": "tinymem.unlearn",
    "ExampleTiedDropout": "tinymem.regularizers",
    "GetSubnet": "tinymem.unlearn",
    "LossTruncation": "tinymem.regularizers",
    "METHODS": "tinymem.methods",
    "MemResult": "tinymem.metrics",
    "Method": "tinymem.methods",
    "MitigationContext": "tinymem.methods",
    "PAD": "tinymem.data",
    "SPACE": "tinymem.data",
    "SupermaskProjection": "tinymem.unlearn",
    "TinyMemData": "tinymem.data",
    "TrainSpec": "tinymem.train",
    "UNLEARNING": "tinymem.methods",
    "VOCAB_SIZE": "tinymem.data",
    "ablate_neurons": "tinymem.unlearn",
    "activation_scores": "tinymem.unlearn",
    "add_noise": "tinymem.data",
    "balanced_subnet": "tinymem.unlearn",
    "balanced_subnet_loss": "tinymem.unlearn",
    "build_data": "tinymem.data",
    "build_model": "tinymem.model",
    "detokenize": "tinymem.data",
    "durable": "tinymem.unlearn",
    "durable_aggregate": "tinymem.unlearn",
    "finalize_example_tied": "tinymem.regularizers",
    "finetune": "tinymem.train",
    "get_subnet": "tinymem.unlearn",
    "greedy": "tinymem.unlearn",
    "greedy_continuation": "tinymem.metrics",
    "hard_concrete_scores": "tinymem.unlearn",
    "integrated_gradients_scores": "tinymem.unlearn",
    "make_sequences": "tinymem.data",
    "mlp_layers": "tinymem.model",
    "n_params": "tinymem.model",
    "noise_in_window": "tinymem.data",
    "percent_memorized": "tinymem.metrics",
    "perplexity": "tinymem.metrics",
    "second_order": "tinymem.unlearn",
    "select_best": "tinymem.methods",
    "slimming_scores": "tinymem.unlearn",
    "spectral_norm": "tinymem.regularizers",
    "spectral_norm_penalty": "tinymem.regularizers",
    "subnet": "tinymem.unlearn",
    "tinymem_config": "tinymem.model",
    "token_accuracy": "tinymem.metrics",
    "token_losses": "tinymem.metrics",
    "tokenize": "tinymem.data",
    "tokenize_batch": "tinymem.data",
    "train_lm": "tinymem.train",
    "zero_out_scores": "tinymem.unlearn",
}

try:
    __version__ = metadata.version("tinymem")
except metadata.PackageNotFoundError:  # pragma: no cover - source tree not installed
    __version__ = "0.0.0"


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'tinymem' has no attribute {name!r}")
    value = getattr(importlib.import_module(where), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "BOS",
    "EOS",
    "METHODS",
    "PAD",
    "SPACE",
    "UNLEARNING",
    "VOCAB_SIZE",
    "DataConfig",
    "EmpiricalBlockFisherInverse",
    "ExampleTiedDropout",
    "GetSubnet",
    "LossTruncation",
    "MemResult",
    "Method",
    "MitigationContext",
    "SupermaskProjection",
    "TinyMemData",
    "TrainSpec",
    "__version__",
    "ablate_neurons",
    "activation_scores",
    "add_noise",
    "balanced_subnet",
    "balanced_subnet_loss",
    "build_data",
    "build_model",
    "detokenize",
    "durable",
    "durable_aggregate",
    "finalize_example_tied",
    "finetune",
    "get_subnet",
    "greedy",
    "greedy_continuation",
    "hard_concrete_scores",
    "integrated_gradients_scores",
    "make_sequences",
    "mlp_layers",
    "n_params",
    "noise_in_window",
    "percent_memorized",
    "perplexity",
    "second_order",
    "select_best",
    "slimming_scores",
    "spectral_norm",
    "spectral_norm_penalty",
    "subnet",
    "tinymem_config",
    "token_accuracy",
    "token_losses",
    "tokenize",
    "tokenize_batch",
    "train_lm",
    "zero_out_scores",
]
assert set(__all__) == set(_WHERE) | {"__version__"}
