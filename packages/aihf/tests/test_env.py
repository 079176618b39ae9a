"""The registered gymnasium env: the env checker, seeding, and the exact model against sampled steps."""

from __future__ import annotations

import aihf
import gymnasium as gym
import numpy as np
import pytest
from aihf.envs import ENV_ID, FeatureGridEnv, grid_layout
from gymnasium.utils.env_checker import check_env


def test_env_checker_passes_on_the_registered_env():
    env = gym.make(aihf.ENV_ID)
    check_env(env.unwrapped, skip_render_check=True)


def test_layout_matches_the_spec():
    phi = grid_layout()
    assert phi.shape == (64, 3)
    assert phi[:, 0].sum() == 1 and phi[63, 0] == 1  # goal in the far corner
    assert phi[:, 1].sum() == 8 and phi[:, 2].sum() == 12
    assert phi.sum(axis=1).max() == 1 and phi[0].sum() == 0  # disjoint, start is plain


def test_seeding_reproduces_episodes():
    def episode(seed: int) -> list[tuple[int, float]]:
        env = gym.make(ENV_ID)
        s, _ = env.reset(seed=seed)
        out, done = [], False
        while not done:
            s, r, term, trunc, _ = env.step(int(env.unwrapped.np_random.integers(4)))
            out.append((int(s), float(r)))
            done = term or trunc
        return out

    a, b, c = episode(3), episode(3), episode(4)
    assert a == b and a != c and len(a) == 30


def test_sampled_transitions_match_the_transition_matrix():
    env = FeatureGridEnv(slip=0.3)
    P = env.transition_matrix()
    np.testing.assert_allclose(P.sum(axis=2), 1.0)
    env.reset(seed=0)
    n = 6000
    counts = np.zeros(64)
    for _ in range(n):  # from state 9 (row 1, col 1), action right
        env._s, env._t = 9, 0
        s, *_ = env.step(1)
        counts[int(s)] += 1
    p = P[9, 1]
    se = np.sqrt(p * (1 - p) / n) + 1e-12
    assert np.all(np.abs(counts / n - p) <= 5 * se + 1e-9)
    assert np.isclose(p[10], 0.7) and np.isclose(p[1], 0.1)


def test_rewards_are_the_linear_true_reward():
    env = FeatureGridEnv()
    np.testing.assert_allclose(env.true_reward(), env.features() @ np.array([1.0, -1.0, -0.2]))


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"slip": 1.5}, "slip"),
        ({"horizon": 0}, "horizon"),
        ({"start": "middle"}, "start"),
        ({"size": 2}, "size"),
    ],
)
def test_bad_env_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        FeatureGridEnv(**kwargs)
