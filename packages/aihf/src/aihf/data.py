"""Trajectories, demonstrations and Bradley–Terry-labelled preference pairs, collected from gymnasium envs.

A :class:`Trajectory` holds the observations at which actions were taken, the actions and the env's
(true) rewards. Preference pairs are ``(winner, loser)`` tuples; :func:`bt_label` draws the label of a pair
from the Bradley–Terry model on true returns, P(τ_1 ≻ τ_2) = σ(R*(τ_1) − R*(τ_2)).

Pairs of unequal length: returns are compared over the common prefix (the longer trajectory is
truncated to the shorter's length) — explicit, so that a longer episode is not preferred only for being
longer. Every env used here has fixed-length episodes, so this never changes a label in the experiments.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np
from numpy.typing import NDArray
from paperkit.validation import check_int

__all__ = [
    "Policy",
    "PreferencePair",
    "Trajectory",
    "bt_label",
    "collect_preferences",
    "collect_trajectories",
    "pair_returns",
]

Policy = Callable[[Any, int, np.random.Generator], Any]
"""``policy(observation, t, rng) -> action``."""


@dataclass(frozen=True)
class Trajectory:
    """One episode.

    Attributes:
        observations: (T, *obs_shape) the observation at which each action was taken.
        actions: (T, *act_shape) the actions.
        rewards: (T,) float64 the env's (true) rewards; used for labels and evaluation only.
    """

    observations: NDArray[Any]
    actions: NDArray[Any]
    rewards: NDArray[np.float64]

    def __post_init__(self) -> None:
        n = len(self.observations)
        if n == 0:
            raise ValueError("a trajectory needs at least one step")
        if len(self.actions) != n or len(self.rewards) != n:
            raise ValueError(
                f"observations, actions and rewards must have the same length, got "
                f"{n}, {len(self.actions)}, {len(self.rewards)}"
            )

    def __len__(self) -> int:
        return len(self.observations)

    @property
    def true_return(self) -> float:
        return float(np.sum(self.rewards))


PreferencePair = tuple[Trajectory, Trajectory]
"""``(preferred, dispreferred)``."""


def collect_trajectories(env: gym.Env[Any, Any], policy: Policy, n: int, seed: int) -> list[Trajectory]:
    """Roll out ``n`` episodes of ``policy`` in ``env`` (until terminated or truncated).

    Args:
        env: a gymnasium env (reset with seed ``seed`` once, then unseeded, so episodes differ).
        policy: ``policy(obs, t, rng) -> action``.
        n: number of episodes (>= 1).
        seed: seeds the env and the policy's generator.
    """
    check_int(n, "n", low=1)
    rng = np.random.default_rng(seed)
    out: list[Trajectory] = []
    for i in range(n):
        obs, _ = env.reset(seed=seed if i == 0 else None)
        observations, actions, rewards = [], [], []
        t, done = 0, False
        while not done:
            action = policy(obs, t, rng)
            nxt, reward, terminated, truncated, _ = env.step(action)
            observations.append(obs)
            actions.append(action)
            rewards.append(float(reward))
            obs, t, done = nxt, t + 1, terminated or truncated
        out.append(Trajectory(np.asarray(observations), np.asarray(actions), np.asarray(rewards)))
    return out


def pair_returns(a: Trajectory, b: Trajectory) -> tuple[float, float]:
    """True returns of a pair over their common prefix (see the module docstring)."""
    n = min(len(a), len(b))
    return float(a.rewards[:n].sum()), float(b.rewards[:n].sum())


def bt_label(a: Trajectory, b: Trajectory, rng: np.random.Generator) -> PreferencePair:
    """Order a pair by a Bradley–Terry draw on true returns: a first with probability σ(R*(a) − R*(b))."""
    ra, rb = pair_returns(a, b)
    p_a = 1.0 / (1.0 + np.exp(-(ra - rb)))
    return (a, b) if rng.random() < p_a else (b, a)


def collect_preferences(
    env: gym.Env[Any, Any],
    make_policy: Callable[[np.random.Generator], Policy],
    n_pairs: int,
    seed: int,
    label: str = "bt",
) -> list[PreferencePair]:
    """``n_pairs`` pairs of episodes, each episode from its own policy ``make_policy(rng)``, labelled.

    Args:
        make_policy: draws a behaviour policy per episode (e.g. an expert with noise ε ~ U(0, 1)).
        label: ``"bt"`` (Bradley–Terry draw on true returns) or ``"deterministic"`` (higher return wins;
            ties keep the order drawn).
    """
    check_int(n_pairs, "n_pairs", low=1)
    if label not in ("bt", "deterministic"):
        raise ValueError(f"label must be 'bt' or 'deterministic', got {label!r}")
    rng = np.random.default_rng(seed)
    pairs: list[PreferencePair] = []
    for _ in range(n_pairs):
        a, b = (collect_trajectories(env, make_policy(rng), 1, int(rng.integers(2**31)))[0] for _ in range(2))
        if label == "bt":
            pairs.append(bt_label(a, b, rng))
        else:
            ra, rb = pair_returns(a, b)
            pairs.append((a, b) if ra >= rb else (b, a))
    return pairs
