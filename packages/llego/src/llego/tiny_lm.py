"""An in-process tiny LM that plays LLEGO's LLM, trained on evolution transcripts built from D_train only.

The paper's LLM brings world knowledge of the features; a few-minute CPU model cannot, so its prior is
*distilled from CART on the training split* (spec, "Small-scale reproduction"):

- a pool of trees: CART fits on half-size bootstrap samples of D_train with random feature subsets,
  depths and leaf sizes, plus random trees, all in :class:`llego.prompts.CompactLanguage`;
- crossover transcripts: 4 parents drawn ∝ fitness, shown worst -> best with their train fitness; M = 8
  GP recombinations of them are scored; the reply is the best one (probability 0.7) or a random one, and
  the target line is the *reply's own* fitness (hindsight relabelling), so the target line varies and the
  model learns what a given target means; with probability 0.3 every fitness is the placeholder
  ``? ? ? ?``, the parents are shuffled and the reply is a random candidate — the no-fitness ablation's
  prompt is then in distribution;
- mutation transcripts: 4 random pool trees in random order -> another pool tree, or a point mutation of
  one parent.

The tokenizer is word level (one token per whitespace-separated symbol of the compact language, so a
depth-3 tree is <= 22 tokens; decoding joins tokens with single spaces). Training is next-token NLL on
the reply tokens with Adam (``paperkit.optim``), linear warm-up and cosine decay.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from paperkit import check_int, check_number, check_seed, torch_threads

from llego.algorithm import Evaluator
from llego.data import Split, check_split
from llego.fitness import Fitness
from llego.llm import TinyLM
from llego.operators import fitness_weighted_parents
from llego.prompts import CompactLanguage
from llego.tree import Node, from_sklearn
from llego.variation import point_mutation, random_tree, varied

__all__ = ["Corpus", "TinyLMConfig", "build_corpus", "train_tiny_lm", "word_tokenizer"]


@dataclass(frozen=True)
class TinyLMConfig:
    """Corpus size, model shape and optimisation of the tiny LM (ours; measured in RESULTS.md)."""

    n_pool: int = 300
    n_examples: int = 3000
    n_candidates: int = 8  # M recombinations scored per crossover transcript
    p_best: float = 0.7
    p_placeholder: float = 0.3
    p_crossover: float = 0.6
    n_layer: int = 2
    n_head: int = 4
    d_model: int = 64
    steps: int = 1000
    batch_size: int = 8
    lr: float = 3e-3
    warmup: int = 30

    def __post_init__(self) -> None:
        for name in (
            "n_pool",
            "n_examples",
            "n_candidates",
            "n_layer",
            "n_head",
            "d_model",
            "steps",
            "batch_size",
        ):
            check_int(getattr(self, name), name, low=1)
        for name in ("p_best", "p_placeholder", "p_crossover"):
            check_number(getattr(self, name), name, low=0.0, high=1.0)
        check_number(self.lr, "lr", low=0.0, low_open=True)
        check_int(self.warmup, "warmup", low=0, high=self.steps)


@dataclass(frozen=True)
class Corpus:
    prompts: tuple[str, ...]
    responses: tuple[str, ...]


def word_tokenizer(vocabulary: list[str]) -> Any:
    """A whitespace-split word-level ``PreTrainedTokenizerFast``; specials <pad> <bos> <eos> <unk> = 0-3."""
    from paperkit.lm import SPECIAL_TOKENS
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {s: i for i, s in enumerate([*SPECIAL_TOKENS, *dict.fromkeys(vocabulary)])}
    backend = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    backend.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    backend.decoder = decoders.WordPiece(prefix="##", cleanup=False)  # joins tokens with one space
    return PreTrainedTokenizerFast(
        tokenizer_object=backend,
        pad_token="<pad>",
        bos_token="<bos>",
        eos_token="<eos>",
        unk_token="<unk>",
        padding_side="right",
        clean_up_tokenization_spaces=False,
    )


def _pool(split: Split, lang: CompactLanguage, n: int, rng: np.random.Generator) -> list[Node]:
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    cls = DecisionTreeClassifier if split.task == "classification" else DecisionTreeRegressor
    values = _bin_values(lang)
    p = split.X_train.shape[1]
    out = []
    for _ in range(n):
        if rng.random() < 0.2:
            out.append(lang.canonical(random_tree(lang.max_depth, values, lang.levels, rng)))
            continue
        rows = rng.choice(split.X_train.shape[0], size=split.X_train.shape[0] // 2, replace=True)
        cols = np.sort(rng.choice(p, size=int(rng.integers(min(3, p), p + 1)), replace=False))
        est = cls(
            max_depth=int(rng.integers(1, lang.max_depth + 1)),
            min_samples_leaf=int(rng.integers(1, 20)),
            random_state=int(rng.integers(2**31)),
        ).fit(split.X_train[rows][:, cols], split.y_train[rows])
        names = [split.dataset.feature_names[c] for c in cols]
        out.append(lang.canonical(from_sklearn(est, names)))
    return out


def _bin_values(lang: CompactLanguage) -> dict[str, np.ndarray]:
    return {f: lang.bins[j] for f, j in lang.split.columns.items()}


def _crossover_example(
    pool: list[Node],
    fit_pool: np.ndarray,
    lang: CompactLanguage,
    ev: Evaluator,
    cfg: TinyLMConfig,
    rng: np.random.Generator,
) -> tuple[str, str]:
    fit: Fitness = ev.fitness
    idx = fitness_weighted_parents(fit_pool, 4, 1, rng, lower_is_better=fit.lower_is_better)[0]
    parents = [pool[int(i)] for i in idx]
    values = _bin_values(lang)
    kids = [
        lang.canonical(varied(parents, rng, max_depth=lang.max_depth, values=values, leaves=lang.levels))
        for _ in range(cfg.n_candidates)
    ]
    kf = np.array([i.train for i in ev.peek(kids)])
    if rng.random() < cfg.p_placeholder:
        order = rng.permutation(4)
        prompt = lang.crossover_prompt([parents[int(j)] for j in order], None, None)
        return prompt, lang.render(kids[int(rng.integers(len(kids)))])
    j = fit.best(kf) if rng.random() < cfg.p_best else int(rng.integers(len(kids)))
    pf = fit_pool[idx]
    order = fit.order(pf)[::-1]  # worst -> best
    prompt = lang.crossover_prompt(
        [parents[int(o)] for o in order], [float(pf[int(o)]) for o in order], float(kf[j])
    )
    return prompt, lang.render(kids[j])


def _mutation_example(pool: list[Node], lang: CompactLanguage, rng: np.random.Generator) -> tuple[str, str]:
    idx = rng.choice(len(pool), size=5, replace=False)
    parents = [pool[int(i)] for i in idx[:4]]
    if rng.random() < 0.5:
        reply = pool[int(idx[4])]
    else:
        reply = lang.canonical(
            point_mutation(parents[int(rng.integers(4))], _bin_values(lang), lang.levels, rng, lang.max_depth)
        )
    return lang.mutation_prompt(parents), lang.render(reply)


def _check_inputs(split: object, lang: object, config: object) -> None:
    check_split(split)
    if not isinstance(lang, CompactLanguage):
        raise TypeError(f"lang must be a CompactLanguage, got {type(lang).__name__}")
    if not isinstance(config, TinyLMConfig):
        raise TypeError(f"config must be a TinyLMConfig, got {type(config).__name__}")


def build_corpus(split: Split, lang: CompactLanguage, config: TinyLMConfig, *, seed: int) -> Corpus:
    """The transcripts (module docstring); uses D_train only."""
    rng = np.random.default_rng(check_seed(seed))
    _check_inputs(split, lang, config)
    pool = _pool(split, lang, config.n_pool, rng)
    ev = Evaluator(split)
    fit_pool = np.array([i.train for i in ev.peek(pool)])
    prompts, responses = [], []
    for _ in range(config.n_examples):
        if rng.random() < config.p_crossover:
            p, r = _crossover_example(pool, fit_pool, lang, ev, config, rng)
        else:
            p, r = _mutation_example(pool, lang, rng)
        prompts.append(p)
        responses.append(r)
    return Corpus(tuple(prompts), tuple(responses))


def _lr(step: int, cfg: TinyLMConfig) -> float:
    if step < cfg.warmup:
        return cfg.lr * (step + 1) / cfg.warmup
    prog = (step - cfg.warmup) / max(cfg.steps - cfg.warmup, 1)
    return cfg.lr * 0.5 * (1 + math.cos(math.pi * min(prog, 1.0)))


@torch_threads(1)  # tiny model: one thread is fastest (paperkit.torch_threads)
def train_tiny_lm(
    split: Split,
    lang: CompactLanguage,
    config: TinyLMConfig | None = None,
    *,
    seed: int = 0,
    device: str = "cpu",
    max_new_tokens: int | None = None,
) -> tuple[TinyLM, dict[str, float]]:
    """Build the corpus, train a tiny GPT-2 on it; ``(TinyLM, info)`` with losses and token counts."""
    import torch
    from paperkit.lm import encode_prompt_response, sequence_logprobs, tiny_causal_lm
    from paperkit.optim import Adam

    cfg = config if config is not None else TinyLMConfig()
    seed = check_seed(seed)
    _check_inputs(split, lang, cfg)
    if max_new_tokens is not None:
        check_int(max_new_tokens, "max_new_tokens", low=1)
    corpus = build_corpus(split, lang, cfg, seed=seed)
    tok = word_tokenizer(lang.vocabulary())
    width = (
        max(len(p.split()) + len(r.split()) for p, r in zip(corpus.prompts, corpus.responses, strict=True))
        + 2
    )
    tree_max = 2 * (2**lang.max_depth - 1) + 2**lang.max_depth
    prompt_max = 2 + 4 * (4 + 1 + tree_max + 1) + 5  # "X |", 4 parent lines, the target line
    positions = max(width, prompt_max) + tree_max + 8
    model = tiny_causal_lm(
        tok,
        n_layer=cfg.n_layer,
        n_head=cfg.n_head,
        d_model=cfg.d_model,
        max_positions=positions,
        seed=seed,
        device=device,
    )
    data = encode_prompt_response(
        tok, list(corpus.prompts), list(corpus.responses), max_length=width, device=device
    )
    lengths = data["attention_mask"].sum(-1)
    opt = Adam([p for p in model.parameters() if p.requires_grad], lr=cfg.lr)
    gen = torch.Generator().manual_seed(seed)
    n = lengths.shape[0]
    losses = []
    model.train()
    for step in range(cfg.steps):
        idx = torch.randint(0, n, (cfg.batch_size,), generator=gen).to(lengths.device)
        w = int(lengths[idx].max())
        batch = {k: v[idx, :w] for k, v in data.items()}
        _, per_tok = sequence_logprobs(model, batch)
        loss = -per_tok.sum() / batch["response_mask"].sum()
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.lr = _lr(step, cfg)
        opt.step()
        losses.append(float(loss.detach()))
    model.eval()
    tokens = int(sum(int(lengths[i]) for i in range(n)) * cfg.steps * cfg.batch_size / n)
    info = {
        "loss_first": float(np.mean(losses[:20])),
        "loss_last": float(np.mean(losses[-20:])),
        "train_tokens": float(tokens),
        "params": float(sum(p.numel() for p in model.parameters())),
        "examples": float(n),
    }
    return TinyLM(model, tok, max_new_tokens=max_new_tokens or tree_max + 2, device=device), info
