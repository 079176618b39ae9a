"""allam: second-language acquisition of a tiny LM by vocabulary expansion (the small version of ALLaM).

Reproduces in miniature "ALLaM: Large Language Models for Arabic and English" (ICLR 2025, OpenReview
MscdsFVZrN; arXiv 2407.15390): tokenizer augmentation, embedding initialisation of the new tokens,
continued pre-training with replay, parallel data, and the alignment stage (SFT, then DPO).
"""

from typing import TYPE_CHECKING

import paperkit

if TYPE_CHECKING:  # the public names, once: type checkers read them, paperkit.public_api parses them
    from allam.align import (
        ALIGN_METHODS,
        AlignConfig,
        Preference,
        align_model,
        align_probes,
        dpo,
        dpo_value,
        preferences,
        response_logprobs,
        sft,
        split_facts,
    )
    from allam.data import (
        RELATIONS,
        STYLES,
        Fact,
        Probe,
        World,
        WorldConfig,
        corpus,
        make_world,
        parallel_pairs,
        qa_probes,
        render,
        translation_probes,
        transliterate,
    )
    from allam.embeddings import INITS, piece_ids, resize_and_init
    from allam.methods import (
        VARIANTS,
        CPTConfig,
        ModelConfig,
        Substrate,
        Variant,
        adapt,
        make_substrate,
        pretrain_base,
        run_variant,
    )
    from allam.metrics import bits_per_byte, lm_loss, qa_scores, score_continuations, text_logprobs
    from allam.tokenizer import Expansion, expand_tokenizer, fertility, token_bytes, train_bpe
    from allam.train import Mixture, cpt_weights, epochs, pack, train_lm

__getattr__, __dir__, __all__ = paperkit.public_api(__name__)

__version__ = paperkit.package_version("iclr25-allam")
