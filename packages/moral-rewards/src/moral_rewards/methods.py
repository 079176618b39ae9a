"""The method and its baselines, and a registry name -> callable with typed metadata.

Every method plays agent M against ``opponent`` on ``game`` and returns the same record: the final action
statistics (``final``: P(D), P(C), P(D | O's C), P(D | O's D), illegal rate over the last 20% of episodes)
and the action-type table of that window.

- ``ppo-lm``: the paper's method on the tiny LM (pre-training, then PPO on the reward schedule);
- ``tabular-reinforce``: the memory-1 logistic policy trained by REINFORCE (reviewer 2's baseline; the peer);
- ``fixed``: a fixed strategy (TFT, AC, AD, Random) playing M, the reference action tables;
- ``base-lm``: the pre-trained LM without fine-tuning.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np
from paperkit import check_seed

from moral_rewards.evaluate import GameLog, action_type_table, p_action, p_defect_after
from moral_rewards.games import ILLEGAL, C, D, Opponent, initial_state, payoff_table
from moral_rewards.rewards import reward

__all__ = [
    "METHODS",
    "MethodInfo",
    "base_lm",
    "fixed",
    "ppo_lm",
    "run_method",
    "summarise",
    "tabular_reinforce",
]

Schedule = tuple[tuple[str, int], ...]


def summarise(log: GameLog, fraction: float = 0.2) -> dict[str, Any]:
    """``{"final": {...}, "action_types": {...}}`` over the last ``fraction`` of the episodes."""
    w = log.last_fraction(fraction)
    axis = tuple(range(np.ndim(w.a_m)))
    final = {
        "p_defect": float(p_action(w, D, axis)),
        "p_coop": float(p_action(w, C, axis)),
        "p_defect_after_c": float(np.nan_to_num(p_defect_after(w, C, axis), nan=0.0)),
        "p_defect_after_d": float(np.nan_to_num(p_defect_after(w, D, axis), nan=0.0)),
        "illegal": float(p_action(w, ILLEGAL, axis)),
    }
    return {"final": final, "action_types": action_type_table(w)}


def _lm(
    game: Any, opponent: str, d_model: int, n_layer: int, pretrain_steps: int, seed: int, device: str
) -> tuple[Any, Any]:
    from paperkit.lm import ValueHeadLM

    from moral_rewards.tiny import PretrainConfig, build_tiny_lm, build_tokenizer, pretrain

    payoff_table(game)
    Opponent(opponent)
    tok = build_tokenizer()
    model = build_tiny_lm(tok, d_model=d_model, n_layer=n_layer, seed=seed, device=device)
    pretrain(
        model,
        tok,
        PretrainConfig(
            n_prompts=max(64, 32 * pretrain_steps), steps=pretrain_steps, warmup_steps=pretrain_steps // 10
        ),
        seed=seed,
        device=device,
    )
    return ValueHeadLM(model), tok


def ppo_lm(
    reward_schedule: Schedule = (("game", 100),),
    *,
    game: Any = "IPD",
    opponent: str = "TFT",
    d_model: int = 128,
    n_layer: int = 2,
    pretrain_steps: int = 200,
    seed: int = 0,
    device: str = "cpu",
) -> dict[str, Any]:
    """Pre-train the tiny LM, fine-tune it by PPO on ``reward_schedule``; the final window's statistics."""
    from moral_rewards.ppo import train_ppo

    seed = check_seed(seed)
    agent, tok = _lm(game, opponent, d_model, n_layer, pretrain_steps, seed, device)
    res = train_ppo(agent, tok, reward_schedule, game=game, opponent=opponent, seed=seed)
    return summarise(res.log) | {"kl": res.kl, "beta": res.beta}


def base_lm(
    *,
    game: Any = "IPD",
    opponent: str = "TFT",
    d_model: int = 128,
    n_layer: int = 2,
    pretrain_steps: int = 200,
    n_games: int = 100,
    seed: int = 0,
    device: str = "cpu",
) -> dict[str, Any]:
    """The pre-trained LM without fine-tuning, ``n_games`` games of 5 rounds (tokens action1 / action2)."""
    from moral_rewards.ppo import play

    seed = check_seed(seed)
    agent, tok = _lm(game, opponent, d_model, n_layer, pretrain_steps, seed, device)
    log = play(
        agent, tok, game=game, opponent=opponent, tokens=("action1", "action2"), n_games=n_games, seed=seed
    )
    return summarise(
        GameLog(
            *(
                np.asarray(getattr(log, f)).reshape(1, n_games, -1)
                for f in ("prev_own", "prev_opp", "a_m", "a_o", "reward")
            )
        ),
        fraction=1.0,
    )


def tabular_reinforce(
    reward_schedule: Schedule = (("game", 300),),
    *,
    game: Any = "IPD",
    opponent: str = "TFT",
    lr: float = 0.5,
    seed: int = 0,
) -> dict[str, Any]:
    """REINFORCE on the 4-parameter memory-1 policy; the final window's statistics and the logits."""
    from moral_rewards.tabular import train_tabular

    res = train_tabular(reward_schedule, game=game, opponent=opponent, lr=lr, seed=seed)
    return summarise(res.log) | {"theta": res.theta}


def fixed(
    strategy: str = "TFT",
    *,
    game: Any = "IPD",
    opponent: str = "TFT",
    kind: str = "game",
    episodes: int = 100,
    steps: int = 5,
    seed: int = 0,
) -> dict[str, Any]:
    """A fixed strategy as M (TFT answers O's previous move), scored with reward ``kind``."""
    rng = np.random.default_rng(check_seed(seed))
    table, opp, me = payoff_table(game), Opponent(opponent), Opponent(strategy)
    reward(kind, C, C, C, table)
    own, prev_opp = initial_state(opp, rng, size=episodes)
    cols: dict[str, list[np.ndarray]] = {k: [] for k in ("prev_own", "prev_opp", "a_m", "a_o", "reward")}
    for _ in range(steps):
        a = me.next_move(prev_opp, rng)
        a_o = opp.next_move(own, rng)
        r = reward(kind, a, a_o, prev_opp, table)
        for k, v in (("prev_own", own), ("prev_opp", prev_opp), ("a_m", a), ("a_o", a_o), ("reward", r)):
            cols[k].append(v)
        own, prev_opp = a, a_o
    log = GameLog(**{k: np.stack(v, axis=-1)[None] for k, v in cols.items()})
    return summarise(log, fraction=1.0) | {"mean_reward": float(np.mean(log.reward))}


@dataclass(frozen=True)
class MethodInfo:
    """A registry entry: the callable and what it declares (uses the LM; takes ``device``)."""

    call: Callable[..., dict[str, Any]]
    description: str
    uses_lm: bool
    takes_device: bool


METHODS = MappingProxyType(
    {
        "ppo-lm": MethodInfo(ppo_lm, "the paper's method: PPO on the tiny LM agent", True, True),
        "base-lm": MethodInfo(base_lm, "the pre-trained LM, no fine-tuning", True, True),
        "tabular-reinforce": MethodInfo(
            tabular_reinforce, "memory-1 logistic policy, REINFORCE (the peer)", False, False
        ),
        "fixed": MethodInfo(fixed, "a fixed strategy (TFT, AC, AD, Random) as the agent", False, False),
    }
)


def run_method(name: str, **kwargs: Any) -> dict[str, Any]:
    """Call the registered method ``name`` with ``kwargs``."""
    if name not in METHODS:
        raise ValueError(f"unknown method {name!r}: expected one of {', '.join(METHODS)}")
    return METHODS[name].call(**kwargs)
