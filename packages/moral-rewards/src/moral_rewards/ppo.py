"""PPO fine-tuning of an LM agent that answers in action tokens, on a per-step scalar reward (TRL-0.7 style).

The PPO update itself is ``paperkit.lm.ppo_step`` (value head ``paperkit.lm.ValueHeadLM``); this module
plays the game, shapes the scores and keeps the trainer's state, as the official ``ppo_trainer.step``:

- one *episode* = ``batch_size`` (official: 5) consecutive one-shot rounds against the opponent, each a
  (query, response, score) triple sampled with ``paperkit.lm.sample_k`` (one sample a prompt: each prompt
  depends on the previous answer), joined by ``paperkit.lm.concat_rollouts``, then one PPO step;
- score normalisation: running mean / std over all scores so far (``use_score_scaling``, ``use_score_norm``);
- per-token reward r_t = -beta (log pi(y_t) - log pi_ref(y_t)), plus the score on the last response token;
  GAE (gamma = 1, lambda = 0.95) with the value head; advantages whitened over the batch (TRL's
  ``whiten``: unbiased variance); ``epochs`` = 4 passes over the batch as one minibatch: clipped surrogate
  (clip 0.2) plus ``vf_coef`` = 0.1 x the clipped value loss (clip 0.2); Adam; no gradient clipping
  (TRL 0.7's ``max_grad_norm`` = None);
- adaptive KL (Ziegler et al., ``paperkit.lm.adaptive_kl_coef``): target 6, horizon 10000 (TRL's defaults;
  the official run sets init_kl_coef 0.2, adap_kl_ctrl).

Responses are sampled with pure sampling (temperature 1, no top-k / top-p) for at most
``len(tokenize(action))`` tokens (the longest action string; one with this tokenizer), decoded, stripped and
compared with the action strings (anything else, an early ``<eos>`` included, is illegal).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from paperkit import check_int, check_number, check_seed
from paperkit.lm import PPOConfig as StepConfig
from paperkit.lm import (
    Rollout,
    ValueHeadLM,
    adaptive_kl_coef,
    concat_rollouts,
    generate_completions,
    sample_k,
)
from paperkit.lm import ppo_step as lm_ppo_step
from paperkit.optim import Adam

from moral_rewards.env import parse_action
from moral_rewards.evaluate import GameLog
from moral_rewards.games import ILLEGAL, C, Opponent, initial_state, payoff_table
from moral_rewards.prompts import build_prompt, check_tokens
from moral_rewards.rewards import R_ILLEGAL, XI, reward
from moral_rewards.tabular import RunningMoments

__all__ = ["PPOConfig", "PPOResult", "PPOState", "play", "ppo_step", "train_ppo"]


@dataclass(frozen=True)
class PPOConfig:
    """Defaults: the official job file / TRL 0.7 defaults, except ``lr`` (spec: 1e-4 for the tiny model)."""

    lr: float = 1e-4  # spec (official: 1.41e-5 with LoRA on a 2B model)
    kl_coef: float = 0.2  # official --init_kl_coef 0.2
    adaptive_kl: bool = True  # official --adap_kl_ctrl True
    target_kl: float = 6.0  # TRL default
    horizon: float = 10_000.0  # TRL default
    epochs: int = 4  # TRL default ppo_epochs
    clip: float = 0.2  # TRL default cliprange
    clip_value: float = 0.2  # TRL default cliprange_value
    gamma: float = 1.0  # TRL default
    lam: float = 0.95  # TRL default
    vf_coef: float = 0.1  # TRL default
    score_norm: bool = True  # official use_score_scaling + use_score_norm (score_clip never set: a typo)

    def __post_init__(self) -> None:
        check_number(self.lr, "lr", low=0.0)
        check_number(self.kl_coef, "kl_coef", low=0.0)
        check_int(self.epochs, "epochs", low=1)
        check_number(self.clip, "clip", low=0.0)

    def step_config(self, beta: float) -> StepConfig:
        """The ``paperkit.lm.PPOConfig`` of one update at KL coefficient ``beta``."""
        return StepConfig(
            epochs=self.epochs,
            minibatches=1,
            clip=self.clip,
            value_clip=self.clip_value,
            vf_coef=self.vf_coef,
            gamma=self.gamma,
            lam=self.lam,
            kl_coef=beta,
            advantage="gae",
            whiten_advantages=True,
            grad_clip=math.inf,  # TRL 0.7: max_grad_norm None
        )


@dataclass
class PPOState:
    """The trainer's state across steps: the optimiser, the KL coefficient beta and the score moments."""

    optimizer: Adam
    beta: float
    moments: RunningMoments = field(default_factory=RunningMoments)


def ppo_step(
    agent: ValueHeadLM,
    ref: torch.nn.Module,
    rollout: Rollout,
    scores: np.ndarray,
    cfg: PPOConfig,
    state: PPOState,
) -> dict[str, float]:
    """One PPO step on a batch of (query, response, score); returns its statistics (KL, beta, losses).

    Normalises ``scores`` with the running moments (``cfg.score_norm``), updates ``agent`` by
    ``paperkit.lm.ppo_step`` at the current beta, then moves beta by the adaptive controller."""
    scores = np.asarray(scores, dtype=float)
    if cfg.score_norm:
        state.moments.update(scores)
        scores = state.moments.normalise(scores)
    beta = state.beta
    scaled = torch.as_tensor(scores, dtype=torch.float32)
    stats = lm_ppo_step(agent, ref, rollout, scaled, state.optimizer, cfg.step_config(beta))
    if cfg.adaptive_kl:
        state.beta = adaptive_kl_coef(
            beta, stats["kl"], target=cfg.target_kl, horizon=cfg.horizon, n_steps=len(scores)
        )
    return {"kl": stats["kl"], "beta": beta, "pg_loss": stats["policy_loss"], "vf_loss": stats["value_loss"]}


def response_length(tokenizer: Any, tokens: Sequence[str]) -> int:
    """The number of tokens to generate: the longest tokenisation of an action string (official gen_len)."""
    return max(len(tokenizer(" " + t, add_special_tokens=False)["input_ids"]) for t in tokens)


def _answer_actions(texts: Sequence[str], tokens: tuple[str, str]) -> np.ndarray:
    return np.array([parse_action(t, tokens) for t in texts], dtype=np.int64)


@torch.no_grad()
def play(
    agent: ValueHeadLM,
    tokenizer: Any,
    *,
    game: str = "IPD",
    opponent: str = "Random",
    tokens: Sequence[str] = ("action3", "action4"),
    n_games: int = 50,
    steps: int = 5,
    variant: str = "structured",
    seed: int = 0,
) -> GameLog:
    """Evaluation: ``n_games`` independent games of ``steps`` rounds, batched: one generation per round.

    Returns a ``GameLog`` of shape (n_games, 1, steps) (each game one "episode").
    """
    if not isinstance(agent, ValueHeadLM):
        raise TypeError(f"agent must be a paperkit.lm.ValueHeadLM, got {type(agent).__name__}")
    rng = np.random.default_rng(check_seed(seed))
    tokens, table, opp = check_tokens(tokens, "tokens"), payoff_table(game), Opponent(opponent)
    check_int(n_games, "n_games", low=1)
    dev = str(next(agent.parameters()).device)
    n_tok = response_length(tokenizer, tokens)
    own, prev_opp = initial_state(opp, rng, size=n_games)
    cols: dict[str, list[np.ndarray]] = {k: [] for k in ("prev_own", "prev_opp", "a_m", "a_o", "reward")}
    for _ in range(check_int(steps, "steps", low=1)):
        prompts = [
            build_prompt(table, int(o), int(p), tokens=tokens, order_rng=rng, variant=variant)
            for o, p in zip(own, prev_opp, strict=True)
        ]
        done = generate_completions(
            agent.lm,
            tokenizer,
            prompts,
            max_new_tokens=n_tok,
            temperature=1.0,
            seed=int(rng.integers(2**62)),
            batch_size=n_games,
            device=dev,
        )
        a = _answer_actions([c.text for c in done], tokens)
        a_o = opp.next_move(own, rng)
        r = reward("game", a, a_o, prev_opp, table)
        for k, v in (("prev_own", own), ("prev_opp", prev_opp), ("a_m", a), ("a_o", a_o), ("reward", r)):
            cols[k].append(np.asarray(v))
        own, prev_opp = np.where(a == ILLEGAL, own, a), a_o
    return GameLog(**{k: np.stack(v, axis=-1)[:, None, :] for k, v in cols.items()})


@dataclass(frozen=True)
class PPOResult:
    """The training play ``log`` (1, episodes, batch) and per-episode PPO statistics (``kl``, ``beta``)."""

    log: GameLog
    kl: np.ndarray
    beta: np.ndarray


def _episode(
    agent: ValueHeadLM, tokenizer: Any, kind: str, setting: dict[str, Any], rng: np.random.Generator
) -> tuple[dict[str, list], Rollout]:
    """``batch_size`` rounds against the opponent, one sampled answer each: the log and the joined rollout."""
    table, opp, tokens = setting["table"], setting["opponent"], setting["tokens"]
    own, prev_opp = initial_state(opp, rng)
    ep: dict[str, list] = {k: [] for k in ("prev_own", "prev_opp", "a_m", "a_o", "reward")}
    parts = []
    for _ in range(setting["batch_size"]):
        prompt = build_prompt(table, own, prev_opp, tokens=tokens, order_rng=rng)
        ro = sample_k(
            agent.lm,
            tokenizer,
            [prompt],
            1,
            max_new_tokens=setting["n_tok"],
            seed=int(rng.integers(2**62)),
            device=setting["device"],
        )
        a = int(_answer_actions(ro.texts, tokens)[0])
        a_o = int(opp.next_move(own, rng))
        r = float(reward(kind, a, a_o, prev_opp, table, xi=setting["xi"], r_illegal=setting["r_illegal"]))
        for k, v in (("prev_own", own), ("prev_opp", prev_opp), ("a_m", a), ("a_o", a_o), ("reward", r)):
            ep[k].append(v)
        parts.append(ro)
        own, prev_opp = (own if a == ILLEGAL else a), a_o
    return ep, concat_rollouts(parts, pad_id=int(tokenizer.pad_token_id))


def train_ppo(
    agent: ValueHeadLM,
    tokenizer: Any,
    reward_schedule: Sequence[tuple[str, int]] = (("game", 300),),
    *,
    config: PPOConfig = PPOConfig(),
    game: str = "IPD",
    opponent: str = "TFT",
    tokens: Sequence[str] = ("action1", "action2"),
    batch_size: int = 5,
    xi: float = XI,
    r_illegal: float = R_ILLEGAL,
    ref_model: torch.nn.Module | None = None,
    seed: int = 0,
) -> PPOResult:
    """Fine-tune ``agent`` (a ``paperkit.lm.ValueHeadLM``) in place by PPO on ``reward_schedule`` =
    ((reward, episodes), ...).

    The reference is a frozen copy of ``agent.lm`` taken now (or ``ref_model``). Each stage keeps the
    optimiser, the KL coefficient and the score statistics (the official unlearning runs one trainer).
    """
    if not isinstance(agent, ValueHeadLM):
        raise TypeError(f"agent must be a paperkit.lm.ValueHeadLM, got {type(agent).__name__}")
    rng = np.random.default_rng(check_seed(seed))
    table = payoff_table(game)
    setting: dict[str, Any] = {
        "table": table,
        "opponent": Opponent(opponent),
        "tokens": check_tokens(tokens, "tokens"),
        "batch_size": check_int(batch_size, "batch_size", low=1),
        "xi": xi,
        "r_illegal": r_illegal,
        "device": str(next(agent.parameters()).device),
    }
    setting["n_tok"] = response_length(tokenizer, setting["tokens"])
    stages = [(k, check_int(e, "episodes", low=1)) for k, e in reward_schedule]
    if not stages:
        raise ValueError("reward_schedule must list at least one (reward, episodes) stage")
    for kind, _ in stages:
        reward(kind, C, C, C, table)  # validates every name before any training
    ref = ref_model if ref_model is not None else copy.deepcopy(agent.lm)
    ref.eval().requires_grad_(False)
    state = PPOState(Adam(agent.parameters(), lr=config.lr), config.kl_coef)
    cols: dict[str, list[np.ndarray]] = {k: [] for k in ("prev_own", "prev_opp", "a_m", "a_o", "reward")}
    kls, betas = [], []
    for kind, episodes in stages:
        for _ in range(episodes):
            ep, rollout = _episode(agent, tokenizer, kind, setting, rng)
            stats = ppo_step(agent, ref, rollout, np.asarray(ep["reward"], dtype=float), config, state)
            kls.append(stats["kl"])
            betas.append(stats["beta"])
            for k in cols:
                cols[k].append(np.asarray(ep[k]))
    log = GameLog(**{k: np.stack(v)[None] for k, v in cols.items()})
    return PPOResult(log=log, kl=np.asarray(kls), beta=np.asarray(betas))
