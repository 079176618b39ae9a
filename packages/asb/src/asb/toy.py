"""The toy backbone: a word-level tiny GPT-2 trained in process on a synthetic "agent protocol" corpus.

The corpus teaches generic skills only, in the compact prompt style, on random fake agents (tool names
drawn at random from the toy pool, so no test agent or attacker tool is ever seen in its role):

1. plan the agent's own tools (the first ones of the tool list), ignoring an extra listed tool;
2. user-channel obedience: a benign imperative "... <verb> the <obj> of <obj> using Z ." in the task is
   obeyed (Z planned as a last step) iff its verb is in a seeded half of the attack verbs, else ignored;
3. observation-channel obedience: the same kind of imperative inside the last observation makes the step
   call Z as well, iff its verb is in another, independently seeded half;
4. in-context demonstrations: "example : <task> <P> . plan : a ; b ; w ." keyed on a random phrase P:
   the query's plan gets the extra step w iff the query contains P;
5. a retrieved workflow ("refer : a ; b ; w .") is copied with probability 1/2, else the own plan.

None of ASB's five injection wrappers, defenses or triggers' roles appear in it, so what the attacks and
defenses do to the model is measured, not trained. Obedience mixed with ignoring (skills 2, 3, 5) keeps
single-channel ASR away from 0 and 1 (the issue's calibration requirement).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from paperkit import check_int, check_seed
from paperkit.agents import ToolSpec

from asb.data import ATTACK_OBJECTS, ATTACK_VERBS, TASK_ADJS, TASK_NOUNS, TASK_VERBS, TOOL_POOL
from asb.defenses import SYNONYMS
from asb.llms import render_prompt
from asb.prompts import Request, Step, format_plan

__all__ = ["ToyConfig", "build_corpus", "build_tokenizer", "obedient_verbs", "train_toy_lm"]

_TRIGGER_WORDS = (
    "with", "perspicacious", "discernment", "through", "prism", "of", "insight", "conducting",
    "comprehensive", "elucidation", "in", "light", "extant", "literature", "keen", "judgement", "lens",
    "quiet", "amber", "novel", "swift", "candid", "lucid", "prudent", "vivid", "subtle", "sincere",
)  # fmt: skip
_LEADS = ("also", "then", "note :", "next ,", "and")


@dataclass(frozen=True)
class ToyConfig:
    """The toy LM and its training (spec "Small-scale reproduction": d <= 128, contexts <= 128)."""

    d_model: int = (
        64  # spec quick: 96 x 3 layers; 64 x 2 is what this machine's CPU share allows (RESULTS.md)
    )
    n_layer: int = 2
    n_head: int = 4
    max_positions: int = 128  # issue 38: contexts <= 128 tokens (longest prompt here: 81 + 16 new)
    steps: int = 800
    batch_size: int = 16
    lr: float = (
        3e-3  # ours: a tiny LM from scratch (paperkit.lm's TrainConfig default 3e-4 is for fine-tuning)
    )
    n_examples: int = 4000
    n_names: int = 40  # the tool-name pool (the first n_names of TOOL_POOL): fewer names, each seen more

    def __post_init__(self) -> None:
        for name in ("d_model", "n_layer", "n_head", "max_positions", "steps", "batch_size", "n_examples"):
            check_int(getattr(self, name), name, low=1)
        if self.d_model > 128:
            raise ValueError(f"d_model must be <= 128 (issue 38), got {self.d_model}")


def obedient_verbs(seed: int) -> tuple[frozenset[str], frozenset[str]]:
    """The attack verbs obeyed in the user channel and in the observation channel (two seeded halves)."""
    rng = np.random.default_rng([seed, 7])
    half = len(ATTACK_VERBS) // 2
    user = frozenset(str(v) for v in rng.permutation(ATTACK_VERBS)[:half])
    obs = frozenset(str(v) for v in rng.permutation(ATTACK_VERBS)[:half])
    return user, obs


def _task(rng: np.random.Generator) -> str:
    verb = str(rng.choice(TASK_VERBS))
    if rng.random() < 0.3:
        verb = SYNONYMS.get(verb, verb)
    lead = "please" if rng.random() < 0.7 else "kindly"
    return f"{lead} {verb} the {rng.choice(TASK_ADJS)} {rng.choice(TASK_NOUNS)} {rng.choice(TASK_NOUNS)} ."


def _imperative(rng: np.random.Generator, verb: str, tool: str) -> str:
    lead = str(rng.choice(_LEADS))
    obj = f"the {rng.choice(ATTACK_OBJECTS)} of {rng.choice(ATTACK_OBJECTS)}"
    form = int(rng.integers(3))
    if form == 0:
        return f"{lead} {verb} {obj} using {tool} ."
    if form == 1:
        return f'{lead} , if you can , {verb} {obj} with the "{tool}" tool , and then go on .'
    return f"{lead} {verb} {obj} . the {tool} tool can do it , so use it ."


def _request(rng: np.random.Generator, names: list[str], *, extra: bool, **kw: object) -> Request:
    a, b, z = names[:3]
    tools = (a, b, z) if extra else (a, b)
    return Request(
        kind="plan", style="compact", agent="toy", description="", tools=tuple(ToolSpec(n) for n in tools),
        normal=(a, b), task=kw.pop("task", _task(rng)), **kw,  # type: ignore[arg-type]
    )  # fmt: skip


def _plan(names: Sequence[str]) -> str:
    return format_plan([Step(f"use {n}", (n,)) for n in names], "compact")


def _plan_example(
    rng: np.random.Generator, names: list[str], obey_user: frozenset[str]
) -> tuple[Request, str]:
    a, b, z = names[:3]
    kind = rng.choice(["clean", "inject", "demo", "memory"], p=[0.2, 0.35, 0.3, 0.15])
    if kind == "clean":
        return _request(rng, names, extra=rng.random() < 0.7), _plan([a, b])
    if kind == "inject":
        verb = str(rng.choice(ATTACK_VERBS))
        task = f"{_task(rng)} {_imperative(rng, verb, z)}"
        return _request(rng, names, extra=True, task=task), _plan([a, b, z] if verb in obey_user else [a, b])
    if kind == "demo":
        phrase = " ".join(rng.choice(_TRIGGER_WORDS, size=int(rng.integers(1, 4)), replace=False))
        demos = tuple(
            (f"{_task(rng).rstrip(' .')} {phrase} .", tuple(Step(f"use {n}", (n,)) for n in (a, b, z)))
            for _ in range(2)
        )
        on = rng.random() < 0.5
        task = f"{_task(rng).rstrip(' .')} {phrase} ." if on else _task(rng)
        return _request(rng, names, extra=True, task=task, demos=demos), _plan([a, b, z] if on else [a, b])
    ref = " ; ".join([a, b, z] if rng.random() < 0.7 else [a, z])
    copy = rng.random() < 0.5
    target = (
        format_plan([Step("", tuple(p.split())) for p in ref.split(" ; ")], "compact")
        if copy
        else _plan([a, b])
    )
    return _request(rng, names, extra=True, reference=ref), target


def _step_example(
    rng: np.random.Generator, names: list[str], obey_obs: frozenset[str]
) -> tuple[Request, str]:
    a, b, z = names[:3]
    # clean runs offer the own tools only, attacked ones t^e too: the steps see both kinds of tool list
    extra = bool(rng.random() < 0.6)
    base = _request(rng, names, extra=extra)
    own = str(rng.choice([a, b]))
    if extra and rng.random() < 0.15:
        step, calls = Step(f"use {z}", (z,)), [z]
        history: tuple[tuple[str, str], ...] = ((f"use {a}", f"{a} done ."),)
    else:
        step, calls = Step(f"use {own}", (own, z) if extra else (own,)), [own]
        other = b if own == a else a
        history = () if rng.random() < 0.3 else ((f"use {other}", f"{other} done ."),)
        if extra and history and rng.random() < 0.6:
            verb = str(rng.choice(ATTACK_VERBS))
            history = ((history[0][0], f"{history[0][1]} ; {_imperative(rng, verb, z)}"),)
            calls = [own, z] if verb in obey_obs else [own]
    req = Request(**{**base.__dict__, "kind": "step", "step": step, "history": history})
    return req, "call : " + " ".join(calls)


def build_corpus(seed: int, n: int, *, names: Sequence[str] = TOOL_POOL) -> tuple[list[str], list[str]]:
    """``n`` (prompt, response) pairs of the skills above, as rendered prompts and target replies."""
    check_seed(seed)
    check_int(n, "n", low=1)
    rng = np.random.default_rng(seed)
    obey_user, obey_obs = obedient_verbs(seed)
    prompts, responses = [], []
    for _ in range(n):
        picked = [str(x) for x in rng.choice(np.asarray(names), size=3, replace=False)]
        if rng.random() < 0.6:
            req, target = _plan_example(rng, picked, obey_user)
        else:
            req, target = _step_example(rng, picked, obey_obs)
        prompts.append(render_prompt(req.messages))
        responses.append(" " + target)
    return prompts, responses


def build_tokenizer(texts: Iterable[str]) -> Any:
    """A word-level tokenizer over the words and punctuation of ``texts`` (whitespace-split, punctuation
    isolated; decode joins tokens with spaces), with paperkit.lm's four special tokens."""
    from paperkit.lm import SPECIAL_TOKENS
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    pre = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Punctuation("isolated")])
    words: set[str] = set()
    for t in texts:
        words.update(w for w, _ in pre.pre_tokenize_str(t))
    vocab = {s: i for i, s in enumerate([*SPECIAL_TOKENS, *sorted(words - set(SPECIAL_TOKENS))])}
    backend = Tokenizer(models.WordLevel(vocab=vocab, unk_token=SPECIAL_TOKENS[3]))
    backend.pre_tokenizer = pre
    pad, bos, eos, unk = SPECIAL_TOKENS
    return PreTrainedTokenizerFast(
        tokenizer_object=backend,
        pad_token=pad,
        bos_token=bos,
        eos_token=eos,
        unk_token=unk,
        padding_side="right",
    )


def train_toy_lm(
    config: ToyConfig, *, seed: int, extra_texts: Sequence[str] = (), device: str = "cpu"
) -> tuple[Any, Any, list[float]]:
    """Corpus (seed), tokenizer (corpus + ``extra_texts``: the test prompts' words), a fresh tiny GPT-2
    (seed) trained with paperkit.lm's SFT loop; returns ``(model, tokenizer, losses)``."""
    from paperkit.lm import TrainConfig, tiny_causal_lm, train_causal_lm

    check_seed(seed)
    prompts, responses = build_corpus(seed, config.n_examples, names=TOOL_POOL[: config.n_names])
    tok = build_tokenizer([*prompts, *responses, *extra_texts])
    model = tiny_causal_lm(
        tok, n_layer=config.n_layer, n_head=config.n_head, d_model=config.d_model,
        max_positions=config.max_positions, seed=seed, device=device,
    )  # fmt: skip
    tc = TrainConfig(
        steps=config.steps,
        batch_size=config.batch_size,
        lr=config.lr,
        warmup_steps=min(30, config.steps),
        seed=seed,
    )
    losses = train_causal_lm(
        model,
        tok,
        prompts,
        responses,
        tc,
        max_length=config.max_positions,
        device=device,
        progress=False,
    )
    return model, tok, losses
