"""Iterated 2x2 matrix games as Gymnasium environments (registered ``moral_rewards/<GAME>-v0`` and
``moral_rewards/Text<GAME>-v0``).

Contract (checked by ``gymnasium.utils.env_checker.check_env`` in the tests):

- observation: ``MultiDiscrete([3, 3])`` = (M's previous legal move, O's previous move), entries in
  {0 = C, 1 = D, 2 = illegal} (O's is never illegal against the fixed strategies);
- action: ``Discrete(3)`` = {0 = C, 1 = D, 2 = illegal answer};
- reward: one of ``rewards.REWARDS`` for M's move this step (a per-step, myopic reward: no credit is carried
  across steps, which is why the Game reward makes D dominant even against TFT);
- an episode is one PPO batch of ``steps`` one-shot rounds (official: 5), truncated after ``steps``;
  ``reset`` draws the initial previous moves as the official ``generate_initial_state``;
- an illegal move leaves M's previous move unchanged (official code); O's previous move is updated.

``TextGameEnv`` adds the LLM interface: ``prompt()`` renders the current state (action tokens listed in an
order drawn from the environment's ``np_random``), ``parse(completion)`` maps a completion to an action by
exact match after stripping whitespace (anything else is illegal), ``step_text(completion)`` does both.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from paperkit import check_choice, check_instance, check_int, check_number

from moral_rewards.games import GAMES, ILLEGAL, C, D, Opponent, initial_state, payoff_table
from moral_rewards.prompts import PROMPT_VARIANTS, build_prompt, check_tokens
from moral_rewards.rewards import R_ILLEGAL, REWARDS, XI, reward

__all__ = ["ENV_IDS", "IteratedMatrixGameEnv", "TextGameEnv", "parse_action", "register_envs"]


def parse_action(completion: str, tokens: tuple[str, str]) -> int:
    """C / D when ``completion.strip()`` equals C's / D's token exactly, else ILLEGAL."""
    text = check_instance(completion, "completion", str).strip()
    if text == tokens[0]:
        return C
    if text == tokens[1]:
        return D
    return ILLEGAL


class IteratedMatrixGameEnv(gym.Env[np.ndarray, int]):
    """M (the learner, row player) against a fixed-strategy opponent for ``steps`` rounds per episode."""

    metadata: dict[str, Any] = {"render_modes": []}  # noqa: RUF012 (gymnasium declares it so)

    def __init__(
        self,
        game: str | object = "IPD",
        opponent: str = "TFT",
        reward: str = "game",
        *,
        xi: float = XI,
        r_illegal: float = R_ILLEGAL,
        steps: int = 5,
    ) -> None:
        self.payoff = payoff_table(game)
        self.game = game if isinstance(game, str) else "custom"
        self.opponent = Opponent(opponent)
        self.reward_kind = check_choice(reward, "reward", REWARDS)
        self.xi = check_number(xi, "xi")
        self.r_illegal = check_number(r_illegal, "r_illegal")
        self.steps = check_int(steps, "steps", low=1)
        self.observation_space = spaces.MultiDiscrete([3, 3])
        self.action_space = spaces.Discrete(3)  # type: ignore[assignment]
        self._own, self._opp, self._t = C, C, 0

    def _obs(self) -> np.ndarray:
        return np.array([self._own, self._opp], dtype=np.int64)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        self._own, self._opp = initial_state(self.opponent, self.np_random)
        self._t = 0
        return self._obs(), {}

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        a_m = int(action)
        if a_m not in (C, D, ILLEGAL):
            raise ValueError(f"action must be 0 (C), 1 (D) or 2 (illegal), got {action!r}")
        a_o = int(self.opponent.next_move(self._own, self.np_random))
        r = float(
            reward(self.reward_kind, a_m, a_o, self._opp, self.payoff, xi=self.xi, r_illegal=self.r_illegal)
        )
        info = {"a_o": a_o, "prev_own": self._own, "prev_opp": self._opp}
        if a_m != ILLEGAL:
            self._own = a_m
        self._opp = a_o
        self._t += 1
        return self._obs(), r, False, self._t >= self.steps, info


class TextGameEnv(IteratedMatrixGameEnv):
    """The same game, seen by an LLM through prompts with two action tokens (C's first)."""

    def __init__(
        self,
        game: str | object = "IPD",
        opponent: str = "TFT",
        reward: str = "game",
        *,
        action_tokens: tuple[str, str] = ("action1", "action2"),
        variant: str = "structured",
        **kwargs: Any,
    ) -> None:
        super().__init__(game, opponent, reward, **kwargs)
        self.action_tokens = check_tokens(action_tokens)
        self.variant = check_choice(variant, "variant", PROMPT_VARIANTS)

    def prompt(self) -> str:
        return build_prompt(
            self.payoff,
            self._own,
            self._opp,
            tokens=self.action_tokens,
            order_rng=self.np_random,
            variant=self.variant,
        )

    def parse(self, completion: str) -> int:
        return parse_action(completion, self.action_tokens)

    def step_text(self, completion: str) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        return self.step(self.parse(completion))


ENV_IDS = tuple(f"moral_rewards/{g}-v0" for g in GAMES) + tuple(f"moral_rewards/Text{g}-v0" for g in GAMES)


def register_envs() -> tuple[str, ...]:
    """Register every game (plain and text) with Gymnasium; idempotent. Returns the ids."""
    for g in GAMES:
        for prefix, entry in (("", "IteratedMatrixGameEnv"), ("Text", "TextGameEnv")):
            env_id = f"moral_rewards/{prefix}{g}-v0"
            if env_id not in gym.registry:
                gym.register(env_id, entry_point=f"moral_rewards.env:{entry}", kwargs={"game": g})
    return ENV_IDS
