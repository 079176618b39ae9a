"""allam: second-language acquisition of a tiny LM by vocabulary expansion (the small version of ALLaM).

Reproduces in miniature "ALLaM: Large Language Models for Arabic and English" (ICLR 2025, OpenReview
MscdsFVZrN; arXiv 2407.15390): tokenizer augmentation, embedding initialisation of the new tokens,
continued pre-training with replay, parallel data, and the alignment stage (SFT, then DPO).
"""

from typing import TYPE_CHECKING

import paperkit

PUBLIC = {
    "RELATIONS": "data",
    "STYLES": "data",
    "translation_probes": "data",
    "ALIGN_METHODS": "align",
    "AlignConfig": "align",
    "Preference": "align",
    "align_model": "align",
    "align_probes": "align",
    "dpo": "align",
    "dpo_value": "align",
    "preferences": "align",
    "response_logprobs": "align",
    "sft": "align",
    "split_facts": "align",
    "Fact": "data",
    "Probe": "data",
    "World": "data",
    "WorldConfig": "data",
    "corpus": "data",
    "make_world": "data",
    "parallel_pairs": "data",
    "qa_probes": "data",
    "render": "data",
    "transliterate": "data",
    "Expansion": "tokenizer",
    "expand_tokenizer": "tokenizer",
    "fertility": "tokenizer",
    "train_bpe": "tokenizer",
    "token_bytes": "tokenizer",
    "INITS": "embeddings",
    "piece_ids": "embeddings",
    "resize_and_init": "embeddings",
    "Mixture": "train",
    "cpt_weights": "train",
    "epochs": "train",
    "pack": "train",
    "train_lm": "train",
    "bits_per_byte": "metrics",
    "lm_loss": "metrics",
    "qa_scores": "metrics",
    "score_continuations": "metrics",
    "text_logprobs": "metrics",
    "VARIANTS": "methods",
    "CPTConfig": "methods",
    "ModelConfig": "methods",
    "Substrate": "methods",
    "Variant": "methods",
    "adapt": "methods",
    "make_substrate": "methods",
    "pretrain_base": "methods",
    "run_variant": "methods",
}
__getattr__, __dir__, __all__ = paperkit.public_api(__name__, PUBLIC)

if TYPE_CHECKING:
    from allam.align import (  # noqa: F401
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
    from allam.data import (  # noqa: F401
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
    from allam.embeddings import INITS, piece_ids, resize_and_init  # noqa: F401
    from allam.methods import (  # noqa: F401
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
    from allam.metrics import bits_per_byte, lm_loss, qa_scores, score_continuations, text_logprobs  # noqa: F401
    from allam.tokenizer import Expansion, expand_tokenizer, fertility, token_bytes, train_bpe  # noqa: F401
    from allam.train import Mixture, cpt_weights, epochs, pack, train_lm  # noqa: F401

__version__ = paperkit.package_version("iclr25-allam")
