"""The MuJoCo part of the spec's full mode: Reacher-v5, clean demonstrations, scarce preferences.

Data (spec): D = 20 episodes of the scripted PD expert with N(0, 0.3²) action noise; P = ``n_pairs``
pairs of episodes from policies that take the expert's action with probability p ~ U(0, 1) per episode
and a uniform random action otherwise, labelled by Bradley–Terry on true returns. Every method gets the
same D and P (per seed). Score: true return of the final policy's mean action over ``eval_episodes``
seeded episodes, normalised by the noiseless expert and the uniform random policy on the same episodes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import gymnasium as gym
import numpy as np
from paperkit import torch_threads

from aihf.continuous import CONTINUOUS_METHODS, ContinuousConfig, evaluate_actor, train_continuous
from aihf.data import collect_preferences, collect_trajectories
from aihf.envs.reacher import mixed_policy, noisy

__all__ = ["ReacherSetting", "run_reacher"]


@dataclass(frozen=True)
class ReacherSetting:
    """Attributes: n_demos (spec 20), demo_sigma (spec 0.3), n_pairs (spec 30 scarce),
    eval_episodes (spec 20),
    train: the per-method training settings."""

    n_demos: int = 20
    demo_sigma: float = 0.3
    n_pairs: int = 30
    eval_episodes: int = 20
    train: ContinuousConfig = field(default_factory=ContinuousConfig)


def run_reacher(setting: ReacherSetting, seed: int, device: str = "cpu") -> dict[str, float]:
    """Normalised true score of every method of ``CONTINUOUS_METHODS`` (and raw returns) for one seed."""
    env = gym.make(setting.train.env_id)
    demos = collect_trajectories(env, noisy(setting.demo_sigma), setting.n_demos, 1000 + seed)
    pairs = collect_preferences(env, lambda g: mixed_policy(float(g.uniform())), setting.n_pairs, 2000 + seed)
    eval_seed = 10_000 + 100 * seed
    j_exp = np.mean([t.true_return for t in _rollouts(env, noisy(0.0), setting.eval_episodes, eval_seed)])
    j_rand = np.mean(
        [t.true_return for t in _rollouts(env, mixed_policy(0.0), setting.eval_episodes, eval_seed)]
    )
    out: dict[str, float] = {"J_expert": float(j_exp), "J_random": float(j_rand)}
    with torch_threads(1):  # tiny nets: one thread is fastest, and the machine is shared
        for m in CONTINUOUS_METHODS:
            actor, _ = train_continuous(m, demos, pairs, setting.train, seed, device)
            j = evaluate_actor(actor, setting.train.env_id, setting.eval_episodes, eval_seed, device)
            out[f"J {m}"] = j
            out[m] = float((j - j_rand) / (j_exp - j_rand))
    return out


def _rollouts(env: gym.Env, policy, n: int, seed: int):  # type: ignore[no-untyped-def]
    return [collect_trajectories(env, policy, 1, seed + i)[0] for i in range(n)]
