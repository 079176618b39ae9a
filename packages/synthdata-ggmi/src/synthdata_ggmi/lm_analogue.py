"""A tiny-LM analogue of the pipeline (ours; the paper has no LM experiment).

World: ``n_entities`` entities with ``n_relations`` relations each and a true value per pair,
``"e012 r1=" -> "v07"``. The first ``n_anchor`` entities are the anchor data S_anchor. A teacher M is a
tiny GPT-2 trained on the anchor facts plus ``J`` further entities with their true values (the knowledge M
adds: information gain) and ``L`` entities with false values (hallucination). Prompted with every pair,
it samples ``n_synthetic`` completions at temperature 1: S_gen. A student of the same size is trained on
S_gen (W) or on S_anchor alone (W'), and scored on the true facts of the held-out entities: greedy exact
match and the log-probability of the true value (graded).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from paperkit import check_array, check_instance, check_int, check_positive, check_seed

from synthdata_ggmi.checks import check_device

__all__ = [
    "FactWorld",
    "LMConfig",
    "make_facts",
    "score_facts",
    "student_on",
    "synthetic_data",
    "teacher_facts",
    "train_on",
]


@dataclass(frozen=True)
class LMConfig:
    """Sizes of the tiny models and their training budget (token counts: RESULTS.md)."""

    n_entities: int = 60
    n_relations: int = 1
    n_values: int = 20
    n_anchor: int = 15
    d_model: int = 64
    n_layer: int = 1  # one layer memorised 120 facts to EM 0.875 in 300 steps (pilot in RESULTS.md)
    n_head: int = 4
    teacher_steps: int = 250  # 250 x 64 pairs x ~13 tokens = 0.21M tokens per teacher
    student_steps: int = 150  # 0.12M tokens per student
    batch_size: int = 64
    lr: float = 5e-3  # the teacher's (M is given, not tuned); students take theirs from Config.lm_lr_grid
    n_synthetic: int = 600

    def __post_init__(self) -> None:
        check_int(self.n_entities, "n_entities", low=2)
        check_int(self.n_anchor, "n_anchor", low=1, high=self.n_entities - 1)
        check_int(self.n_values, "n_values", low=2, high=100)
        check_int(self.n_relations, "n_relations", low=1, high=10)
        for name in (
            "d_model",
            "n_layer",
            "n_head",
            "teacher_steps",
            "student_steps",
            "batch_size",
            "n_synthetic",
        ):
            check_int(getattr(self, name), name, low=1)
        if self.d_model % self.n_head:
            raise ValueError(f"d_model={self.d_model} must be divisible by n_head={self.n_head}")
        check_positive(self.lr, "lr")


@dataclass(frozen=True)
class FactWorld:
    """``truth (n_entities, n_relations)`` int values; ``order``: the held-out entities in the order the
    teacher learns them (J true first, then L false)."""

    truth: np.ndarray
    n_anchor: int
    order: np.ndarray

    def prompt(self, e: int, r: int) -> str:
        return f"e{e:03d} r{r}="

    def facts(self, entities: np.ndarray, values: np.ndarray | None = None) -> tuple[list[str], list[str]]:
        """Prompt/response pairs of ``entities`` (every relation), true values unless ``values`` given."""
        vals = self.truth[entities] if values is None else values
        prompts = [self.prompt(int(e), r) for e in entities for r in range(self.truth.shape[1])]
        return prompts, [f"v{int(v):02d}" for row in vals for v in row]


def make_facts(config: LMConfig, *, seed: int) -> FactWorld:
    """A random fact table and a random order of the held-out entities."""
    check_instance(config, "config", LMConfig)
    rng = np.random.default_rng(check_seed(seed))
    truth = rng.integers(0, config.n_values, size=(config.n_entities, config.n_relations))
    order = config.n_anchor + rng.permutation(config.n_entities - config.n_anchor)
    return FactWorld(truth, config.n_anchor, order)


def _tokenizer() -> Any:
    from paperkit.lm import char_tokenizer

    return char_tokenizer("0123456789erv =")


def train_on(
    prompts: list[str],
    responses: list[str],
    config: LMConfig,
    *,
    steps: int,
    lr: float,
    seed: int,
    device: str,
) -> Any:
    """A fresh tiny GPT-2 (init from ``seed``) fine-tuned on the pairs; returns the model (eval mode)."""
    from paperkit.lm import TrainConfig, tiny_causal_lm, train_causal_lm

    tok = _tokenizer()
    model = tiny_causal_lm(
        tok, arch="gpt2", n_layer=config.n_layer, n_head=config.n_head, d_model=config.d_model,
        max_positions=32, seed=seed, device=device,
    )  # fmt: skip
    tc = TrainConfig(steps=steps, batch_size=config.batch_size, lr=lr, warmup_steps=steps // 20, seed=seed)
    train_causal_lm(model, tok, prompts, responses, tc, max_length=32, device=device, progress=False)
    return model.eval()


def teacher_facts(world: FactWorld, J: int, L: int, *, seed: int) -> tuple[list[str], list[str]]:
    """The teacher's training pairs: anchor + J true held-out entities + L held-out entities with false
    values (the true value shifted by a random non-zero offset)."""
    n_values = int(world.truth.max()) + 1 if world.truth.size else 1
    n_values = max(n_values, 2)
    true_e = np.concatenate([np.arange(world.n_anchor), world.order[:J]])
    false_e = world.order[J : J + L]
    rng = np.random.default_rng([seed, 11])
    wrong = (world.truth[false_e] + rng.integers(1, n_values, size=world.truth[false_e].shape)) % n_values
    p1, r1 = world.facts(true_e)
    p2, r2 = world.facts(false_e, wrong)
    return p1 + p2, r1 + r2


def synthetic_data(
    teacher: Any, world: FactWorld, n: int, *, seed: int, device: str
) -> tuple[list[str], list[str]]:
    """S_gen: ``n`` prompts drawn uniformly over all pairs, completed by the teacher at temperature 1."""
    from paperkit.lm import generate

    rng = np.random.default_rng([seed, 13])
    pairs = rng.integers(0, world.truth.size, size=check_int(n, "n", low=1))
    n_rel = world.truth.shape[1]
    prompts = [world.prompt(int(k) // n_rel, int(k) % n_rel) for k in pairs]
    outs = generate(
        teacher,
        _tokenizer(),
        prompts,
        max_new_tokens=4,
        temperature=1.0,
        seed=seed,
        batch_size=256,
        device=device,
    )
    return prompts, [o[:3] for o in outs]


def score_facts(model: Any, world: FactWorld, entities: np.ndarray, *, device: str) -> dict[str, float]:
    """Greedy exact match and mean log-prob (nats) of the true value over the facts of ``entities``."""
    check_instance(world, "world", FactWorld)
    device = check_device(device)
    ent = np.asarray(check_array(entities, "entities", ndim=1, kind="iu"))
    if ent.size == 0 or ent.min() < 0 or ent.max() >= world.truth.shape[0]:
        raise ValueError(f"entities must be a non-empty array of indices in [0, {world.truth.shape[0]})")
    tok = _tokenizer()
    prompts, answers = world.facts(ent)
    import torch
    from paperkit.lm import encode_prompt_response, generate, sequence_logprobs

    pred = generate(model, tok, prompts, max_new_tokens=4, batch_size=256, device=device)
    with torch.no_grad():
        total, _ = sequence_logprobs(
            model, encode_prompt_response(tok, prompts, answers, max_length=32, device=device)
        )
    return {
        "em": float(np.mean([p[:3] == a for p, a in zip(pred, answers, strict=True)])),
        "logprob": float(total.mean()),
    }


def student_on(
    world: FactWorld, config: LMConfig, *, J: int | None, L: int = 0, lr: float, seed: int, device: str
) -> tuple[Any, Any]:
    """``(student, teacher)``: ``J=None`` trains the anchor student W' (no teacher); otherwise a teacher
    with ``(J, L)`` is trained, samples S_gen, and the student W is trained on it. Same ``seed`` => same
    initialisations and batch order for every variant (paired)."""
    check_instance(world, "world", FactWorld)
    check_instance(config, "config", LMConfig)
    n_held = len(world.order)
    if J is not None:
        J = check_int(J, "J", low=0, high=n_held)
    L = check_int(L, "L", low=0, high=n_held - (J or 0))
    lr, seed, device = check_positive(lr, "lr"), check_seed(seed), check_device(device)
    if J is None:
        p, r = world.facts(np.arange(world.n_anchor))
        return train_on(p, r, config, steps=config.student_steps, lr=lr, seed=seed + 1, device=device), None
    tp, tr = teacher_facts(world, J, L, seed=seed)
    teacher = train_on(tp, tr, config, steps=config.teacher_steps, lr=config.lr, seed=seed, device=device)
    sp, sr = synthetic_data(teacher, world, config.n_synthetic, seed=seed, device=device)
    return train_on(sp, sr, config, steps=config.student_steps, lr=lr, seed=seed + 1, device=device), teacher
