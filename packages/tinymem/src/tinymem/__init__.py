"""tinymem: TinyMem models that memorise, and 17 ways to make them forget (Sakarvadia et al., ICLR 2025).

Three lines::

    data = tinymem.build_data(tinymem.DataConfig(), seed=0)
    model = tinymem.build_model(tinymem.tinymem_config(n_layer=2, n_embd=64))
    tinymem.train_lm(model, data.train, tinymem.TrainSpec(epochs=40, lr=5e-3))
    edited = tinymem.balanced_subnet(model, data.noised, data.clean_train, ratio=0.01)

Names resolve on first use, so ``import tinymem`` (and the ``tinymem`` command line) does not load torch. The
public names are listed once, in ``PUBLIC`` (name -> submodule); the experiment (``tinymem.reproduce``) is
not part of the package's API.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import paperkit

if TYPE_CHECKING:  # what type checkers read: the same names as PUBLIC (checked by the conformance suite)
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
        NextTokenScores,
        greedy_continuation,
        next_token_scores,
        percent_memorized,
        perplexity,
        token_accuracy,
        token_losses,
    )
    from tinymem.models import build_model, mlp_layers, n_params, tinymem_config
    from tinymem.regularizers import (
        ExampleTiedDropout,
        LossTruncation,
        finalize_example_tied,
        spectral_norm,
        spectral_norm_penalty,
    )
    from tinymem.training import TrainSpec, finetune, train_lm
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

#: Every public name -> the submodule that defines it (the one table; __all__ and lazy loading follow).
PUBLIC = {
    "BOS": "data",
    "DataConfig": "data",
    "EOS": "data",
    "EmpiricalBlockFisherInverse": "unlearn",
    "ExampleTiedDropout": "regularizers",
    "GetSubnet": "unlearn",
    "LossTruncation": "regularizers",
    "METHODS": "methods",
    "MemResult": "metrics",
    "NextTokenScores": "metrics",
    "Method": "methods",
    "MitigationContext": "methods",
    "PAD": "data",
    "SPACE": "data",
    "SupermaskProjection": "unlearn",
    "TinyMemData": "data",
    "TrainSpec": "training",
    "UNLEARNING": "methods",
    "VOCAB_SIZE": "data",
    "ablate_neurons": "unlearn",
    "activation_scores": "unlearn",
    "add_noise": "data",
    "balanced_subnet": "unlearn",
    "balanced_subnet_loss": "unlearn",
    "build_data": "data",
    "build_model": "models",
    "detokenize": "data",
    "durable": "unlearn",
    "durable_aggregate": "unlearn",
    "finalize_example_tied": "regularizers",
    "finetune": "training",
    "get_subnet": "unlearn",
    "greedy": "unlearn",
    "greedy_continuation": "metrics",
    "hard_concrete_scores": "unlearn",
    "integrated_gradients_scores": "unlearn",
    "make_sequences": "data",
    "mlp_layers": "models",
    "n_params": "models",
    "noise_in_window": "data",
    "next_token_scores": "metrics",
    "percent_memorized": "metrics",
    "perplexity": "metrics",
    "second_order": "unlearn",
    "select_best": "methods",
    "slimming_scores": "unlearn",
    "spectral_norm": "regularizers",
    "spectral_norm_penalty": "regularizers",
    "subnet": "unlearn",
    "tinymem_config": "models",
    "token_accuracy": "metrics",
    "token_losses": "metrics",
    "tokenize": "data",
    "tokenize_batch": "data",
    "train_lm": "training",
    "zero_out_scores": "unlearn",
}
__getattr__, __dir__, __all__ = paperkit.public_api(__name__, PUBLIC, eager=("PUBLIC", "__version__"))

__version__ = paperkit.package_version("iclr25-tinymem")
