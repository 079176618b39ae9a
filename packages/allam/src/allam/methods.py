"""The method (vocabulary expansion + averaged-piece init + continued pre-training with replay) and its
baselines, as a registry of variants that branch from one A-pretrained base model.

Every variant continues pre-training the same base for the same steps and tokens per step, on the same
mixture recipe; they differ only in what the registry says (spec, "Baselines to ship beside it"):

==================  =========  ============  ======  ===========
variant             tokenizer  new rows      replay  translation
==================  =========  ============  ======  ===========
``expand_mean``     expanded   mean_subword  yes     no          (the method)
``orig_tok``        A's        --            yes     no
``expand_random``   expanded   random        yes     no
``expand_mean_all`` expanded   mean_all      yes     no
``no_replay``       expanded   mean_subword  no      no
``translation``     expanded   mean_subword  yes     yes (parallel pairs of the "both" facts)
==================  =========  ============  ======  ===========
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from paperkit.lm import tiny_causal_lm
from paperkit.validation import check_choice, check_int, check_number, check_positive, check_seed

from allam.data import World, WorldConfig, corpus, make_world, parallel_pairs
from allam.embeddings import resize_and_init
from allam.tokenizer import Expansion, expand_tokenizer, train_bpe
from allam.train import Mixture, cpt_weights, epochs, pack, train_lm

__all__ = [
    "VARIANTS",
    "CPTConfig",
    "ModelConfig",
    "Substrate",
    "Variant",
    "adapt",
    "make_substrate",
    "pretrain_base",
    "run_variant",
]


@dataclass(frozen=True)
class Variant:
    """One registry entry (declared capabilities, module docstring table)."""

    expand: bool
    init: str | None
    replay: bool
    translation: bool
    description: str


VARIANTS: dict[str, Variant] = {
    "expand_mean": Variant(True, "mean_subword", True, False, "expanded tokenizer, averaged-piece init"),
    "orig_tok": Variant(False, None, True, False, "A's tokenizer (B text at byte level)"),
    "expand_random": Variant(True, "random", True, False, "expanded tokenizer, N(0, 0.02^2) init"),
    "expand_mean_all": Variant(True, "mean_all", True, False, "expanded tokenizer, mean-of-all init"),
    "no_replay": Variant(True, "mean_subword", False, False, "as expand_mean, B text only"),
    "translation": Variant(True, "mean_subword", True, True, "as expand_mean, plus parallel pairs"),
}


@dataclass(frozen=True)
class ModelConfig:
    """The tiny GPT-2 (``paperkit.lm.tiny_causal_lm``; ours, spec: 3 layers x 128) and its row length
    (128: a B sentence under A's byte-level tokenizer takes up to ~70 tokens)."""

    d_model: int = 64
    n_layer: int = 2
    n_head: int = 4
    seq_len: int = 128

    def __post_init__(self) -> None:
        for name in ("d_model", "n_layer", "n_head"):
            check_int(getattr(self, name), name, low=1)
        check_int(self.seq_len, "seq_len", low=8)


@dataclass(frozen=True)
class CPTConfig:
    """Continued pre-training: ``steps`` of ``batch_size`` packed rows at peak ``lr`` (warm-up
    ``warmup`` steps, cosine decay); ``replay_ratio`` is the share of A documents (spec: 0.5)."""

    steps: int = 300
    batch_size: int = 8
    lr: float = 2e-3
    warmup: int = 20
    replay_ratio: float = 0.5

    def __post_init__(self) -> None:
        check_int(self.steps, "steps", low=1)
        check_int(self.batch_size, "batch_size", low=1)
        check_positive(self.lr, "lr")
        check_int(self.warmup, "warmup", low=0, high=self.steps)
        check_number(self.replay_ratio, "replay_ratio", low=0.0, high=1.0)


@dataclass(frozen=True)
class Substrate:
    """A world, its texts and the tokenizers: ``texts`` keys ``a_train``, ``b_train``, ``parallel``
    (training), ``a_eval``, ``b_eval`` (held-out template 5); ``expansion`` merges B's BPE into A's."""

    world: World
    tok_a: Any
    tok_b: Any
    expansion: Expansion
    texts: Mapping[str, list[str]]


def make_substrate(
    world: WorldConfig | None = None, *, seed: int, vocab_a: int = 512, vocab_b: int = 512
) -> Substrate:
    """Draw the world from ``seed``, render its texts and train both BPEs (spec: vocab 512 each)."""
    w = make_world(world, seed=seed)
    check_int(vocab_a, "vocab_a", low=260)
    check_int(vocab_b, "vocab_b", low=260)
    texts = {
        "a_train": corpus(w.of("A", "AB"), "A"),
        "b_train": corpus(w.of("AB", "B"), "B"),
        "parallel": parallel_pairs(w.of("AB")),
        "a_eval": corpus(w.of("A", "AB"), "A", (5,)),
        "b_eval": corpus(w.of("AB", "B"), "B", (5,)),
    }
    tok_a, tok_b = train_bpe(texts["a_train"], vocab_a), train_bpe(texts["b_train"], vocab_b)
    return Substrate(w, tok_a, tok_b, expand_tokenizer(tok_a, tok_b), texts)


def pretrain_base(
    sub: Substrate,
    model: ModelConfig,
    *,
    steps: int,
    batch_size: int = 8,
    lr: float = 3e-3,
    warmup: int = 20,
    seed: int,
    device: str = "cpu",
) -> tuple[Any, list[float]]:
    """A fresh tiny GPT-2 on A's tokenizer, trained on A text only (shuffled epochs); (model, losses)."""
    seed = check_seed(seed)
    m = tiny_causal_lm(sub.tok_a, n_layer=model.n_layer, n_head=model.n_head, d_model=model.d_model,
                       max_positions=model.seq_len, seed=seed, device=device)  # fmt: skip
    n_docs = steps * batch_size * model.seq_len // 8 + len(sub.texts["a_train"])  # >= the rows needed
    docs = epochs(sub.texts["a_train"], max(1, n_docs // len(sub.texts["a_train"])), seed=seed)
    rows = pack(sub.tok_a, docs, model.seq_len)
    losses = train_lm(m, rows, pad_id=sub.tok_a.pad_token_id, steps=steps, batch_size=batch_size, lr=lr,
                      warmup=warmup, seed=seed, device=device)  # fmt: skip
    return m, losses


def adapt(
    name: str,
    base: Any,
    sub: Substrate,
    cpt: CPTConfig,
    *,
    seq_len: int,
    seed: int,
    device: str = "cpu",
    callback: Callable[[Any, Any, int], None] | None = None,
    every: int = 0,
) -> tuple[Any, Any, list[float]]:
    """Branch variant ``name`` from ``base`` (copied; the base is untouched): expand and initialise if the
    variant says so, then continue pre-training on its mixture. Returns (model, tokenizer, losses);
    ``callback(model, tokenizer, step)`` runs every ``every`` steps."""
    check_choice(name, "name", tuple(VARIANTS))
    if not isinstance(cpt, CPTConfig):
        raise TypeError(f"cpt must be a CPTConfig, got {type(cpt).__name__}")
    seed = check_seed(seed)
    v = VARIANTS[name]
    model = copy.deepcopy(base)
    tok = sub.tok_a
    if v.expand:
        tok = sub.expansion.tokenizer
        resize_and_init(
            model, sub.tok_a, tok, sub.expansion.new_ids, method=v.init or "mean_subword", seed=seed
        )
    ratio = cpt.replay_ratio if v.replay else 0.0
    weights = cpt_weights(ratio, translation=v.translation)
    sources = {"A": sub.texts["a_train"], "B": sub.texts["b_train"], "parallel": sub.texts["parallel"]}
    mix = Mixture({k: sources[k] for k in weights}, weights)
    # The same document draw for every variant of a seed (paired); enough documents for the rows needed.
    docs = mix.sample(cpt.steps * cpt.batch_size * seq_len // 6, seed=seed + 1)
    rows = pack(tok, docs, seq_len)
    hook = (lambda step: callback(model, tok, step)) if callback is not None else None
    losses = train_lm(
        model, rows, pad_id=tok.pad_token_id, steps=cpt.steps, batch_size=cpt.batch_size, lr=cpt.lr,
        warmup=cpt.warmup, seed=seed, device=device, callback=hook, every=every,
    )  # fmt: skip
    return model, tok, losses


def run_variant(
    name: str,
    *,
    n_entities: int = 6,
    pretrain_steps: int = 4,
    cpt_steps: int = 4,
    replay_ratio: float = 0.5,
    d_model: int = 16,
    seed: int = 0,
    device: str = "cpu",
) -> dict[str, Any]:
    """The whole pipeline for one variant at toy size (three lines in a notebook); returns the CPT losses
    and the B and A bits per byte on the held-out texts."""
    from allam.metrics import bits_per_byte

    check_choice(name, "name", tuple(VARIANTS))
    check_int(pretrain_steps, "pretrain_steps", low=1)
    check_int(cpt_steps, "cpt_steps", low=1)
    check_number(replay_ratio, "replay_ratio", low=0.0, high=1.0)
    sub = make_substrate(WorldConfig(n_entities=n_entities), seed=seed, vocab_a=300, vocab_b=300)
    mc = ModelConfig(d_model=d_model, n_layer=1, n_head=2, seq_len=160)
    base, _ = pretrain_base(sub, mc, steps=pretrain_steps, batch_size=4, warmup=0, seed=seed, device=device)
    cpt = CPTConfig(steps=cpt_steps, batch_size=4, warmup=0, replay_ratio=replay_ratio)
    model, tok, losses = adapt(name, base, sub, cpt, seq_len=mc.seq_len, seed=seed, device=device)
    return {
        "losses": losses,
        "b_bpb": bits_per_byte(model, tok, sub.texts["b_eval"], device=device),
        "a_bpb": bits_per_byte(model, tok, sub.texts["a_eval"], device=device),
    }
