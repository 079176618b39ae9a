"""tinymem: TinyMem models that memorise, and 17 ways to make them forget (Sakarvadia et al., ICLR 2025).

Three lines::

    data = tinymem.build_data(tinymem.DataConfig(), seed=0)
    model = tinymem.build_model(tinymem.tinymem_config(n_layer=2, n_embd=64))
    tinymem.train_lm(model, data.train, tinymem.TrainSpec(epochs=40, lr=5e-3))
    edited = tinymem.balanced_subnet(model, data.noised, data.clean_train, ratio=0.01)

Names resolve on first use, so ``import tinymem`` (and the ``tinymem`` command line) does not load torch. The
public names are listed once, as the ``if TYPE_CHECKING:`` imports; the experiment (``tinymem.reproduce``) is
not part of the package's API.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import paperkit

if TYPE_CHECKING:  # the public names, once: type checkers read them, paperkit.public_api parses them
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

__getattr__, __dir__, __all__ = paperkit.public_api(__name__)

__version__ = paperkit.package_version("iclr25-tinymem")
