"""The gymnasium environment: API contract and consistency with the dynamics."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from rslqr.env import ENV_ID, EpisodicLEQREnv, register_envs
from rslqr.systems import system_a, system_b

# The action/observation spaces are deliberately unbounded (linear dynamics, no saturation).
EXPECTED_WARNINGS = ("infinity", "symmetric and normalized")


def test_passes_gymnasium_env_checker() -> None:
    for env in (EpisodicLEQREnv(system_a()), EpisodicLEQREnv(system_b(T=1))):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            check_env(env, skip_render_check=True)
        unexpected = [
            str(w.message) for w in caught if not any(s in str(w.message) for s in EXPECTED_WARNINGS)
        ]
        assert unexpected == []


def test_registration_is_idempotent_and_make_works() -> None:
    register_envs()
    register_envs()
    assert ENV_ID in gym.envs.registry
    env = gym.make(ENV_ID, system=system_b(gamma=0.05, T=4))
    x, info = env.reset(seed=3)
    assert x.shape == (2,) and info == {"t": 0}
    steps = 0
    terminated = truncated = False
    while not (terminated or truncated):
        x, _, terminated, truncated, info = env.step(np.zeros(1))
        steps += 1
    assert steps == 4 and terminated and not truncated and info["t"] == 4
    default = gym.make(ENV_ID)
    assert default.unwrapped.system.T == 10  # type: ignore[attr-defined]


def test_rollouts_follow_the_dynamics_and_rewards_are_minus_cost() -> None:
    system = system_a(T=6)
    env = EpisodicLEQREnv(system)
    rng = np.random.default_rng(0)
    residuals = []
    for actions in (np.zeros((6, 1)), rng.standard_normal((6, 1))):
        x, _ = env.reset(seed=7)
        xs, total = [x], 0.0
        for t in range(6):
            x, r, terminated, truncated, _ = env.step(actions[t])
            xs.append(x)
            total += float(r)
            assert terminated == (t == 5) and truncated is False
        X = np.array(xs)
        residuals.append(X[1:] - X[:-1] @ system.A.T - actions @ system.B.T)
        cost = sum(X[t] @ system.Q @ X[t] + actions[t] @ system.R @ actions[t] for t in range(6))
        cost += X[6] @ system.QT @ X[6]
        assert total == pytest.approx(-cost, rel=1e-12)
    # Same seed => the same noise sequence whatever the actions (the dynamics are linear).
    np.testing.assert_allclose(residuals[0], residuals[1], atol=1e-12)


def test_initial_state_and_noise_statistics() -> None:
    system = system_a(T=2)
    env = EpisodicLEQREnv(system)
    x0s, ws = [], []
    env.reset(seed=0)
    for _ in range(4000):
        x0, _ = env.reset()
        x1 = env.step(np.zeros(1))[0]
        x0s.append(x0)
        ws.append(x1 - system.A @ x0)
        env.step(np.zeros(1))
    # 4000 samples: entrywise sd of a sample covariance is ~ sqrt(2/4000) ≈ 0.022 relative.
    np.testing.assert_allclose(np.cov(np.array(x0s).T), system.x0_cov, atol=0.1)
    np.testing.assert_allclose(np.cov(np.array(ws).T), system.W, atol=0.1 * 0.05)


def test_seeding_options_and_misuse() -> None:
    env = EpisodicLEQREnv(system_a(T=3))
    a, _ = env.reset(seed=11)
    b, _ = env.reset(seed=11)
    np.testing.assert_array_equal(a, b)
    x, _ = env.reset(options={"x0": [1.0, 2.0]})
    np.testing.assert_array_equal(x, [1.0, 2.0])
    with pytest.raises(ValueError, match="action must have shape"):
        env.step(np.zeros(2))
    for _ in range(3):
        env.step(np.zeros(1))
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(np.zeros(1))
    with pytest.raises(ValueError, match=r"options\['x0'\]"):
        env.reset(options={"x0": [1.0]})
    with pytest.raises(TypeError, match="LEQRSystem"):
        EpisodicLEQREnv("not a system")  # type: ignore[arg-type]
