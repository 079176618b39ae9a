"""Reacher-v5 expert, SAC and the continuous trainers' input checks."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
import torch
from aihf.continuous import ContinuousConfig, MLPReward, train_continuous
from aihf.data import Trajectory, collect_trajectories
from aihf.envs.reacher import mixed_policy, noisy, reacher_pd_expert
from aihf.sac import SAC
from shared_testing import assert_identical

pytestmark = pytest.mark.usefixtures("torch_one_thread")


def test_reacher_expert_beats_random_by_a_wide_margin():
    env = gym.make("Reacher-v5")
    expert = [collect_trajectories(env, noisy(0.0), 1, s)[0].true_return for s in range(10)]
    rand = [collect_trajectories(env, mixed_policy(0.0), 1, s)[0].true_return for s in range(10)]
    assert np.mean(expert) >= -8.0, np.mean(expert)
    assert np.mean(rand) <= -35.0, np.mean(rand)


def test_expert_jacobian_matches_finite_differences_of_the_fingertip(rng):
    q = rng.uniform(-np.pi, np.pi, 2)

    def tip(q):
        return np.array(
            [0.1 * np.cos(q[0]) + 0.11 * np.cos(q.sum()), 0.1 * np.sin(q[0]) + 0.11 * np.sin(q.sum())]
        )

    err = rng.normal(0, 0.01, 2)  # target − fingertip, small so that nothing clips at kp = 20
    J = np.stack([(tip(q + e) - tip(q - e)) / 2e-6 for e in np.eye(2) * 1e-6], axis=1)
    obs = np.concatenate([np.cos(q), np.sin(q), [0, 0], [0.0, 0.0], -err])
    np.testing.assert_allclose(reacher_pd_expert(obs), 20.0 * J.T @ err, rtol=1e-6)
    with pytest.raises(ValueError, match="10 entries"):
        reacher_pd_expert(np.zeros(11))


def test_tanh_gaussian_log_prob_matches_the_sampling_density(device, torch_gen):
    torch.manual_seed(0)
    sac = SAC(3, 2, device=device)
    obs = torch.randn(64, 3, generator=torch_gen, device=device)
    a, logp, _ = sac.actor(obs, torch_gen)
    ok = a.abs().max(-1).values < 0.99
    torch.testing.assert_close(sac.actor.log_prob(obs, a)[ok], logp[ok], rtol=1e-3, atol=1e-3)


def test_sac_solves_a_one_step_soft_problem(device, torch_gen):
    """Reward −‖a − 0.5‖², done every step: the soft-optimal mean action is ≈ 0.5 for small α."""
    torch.manual_seed(0)
    sac = SAC(1, 2, hidden=(32, 32), alpha=0.01, lr=3e-3, device=device)
    obs = torch.zeros(128, 1, device=device)
    for _ in range(400):
        a = torch.rand(128, 2, generator=torch_gen, device=device) * 2 - 1
        r = -((a - 0.5) ** 2).sum(-1)
        sac.update(obs, a, r, obs, torch.ones(128, device=device), torch_gen)
    mean = sac.actor(obs[:1])[2][0]
    torch.testing.assert_close(mean, torch.full((2,), 0.5, device=device), atol=0.12, rtol=0)


def test_mlp_reward_shapes(device, torch_gen):
    torch.manual_seed(0)
    r = MLPReward(10, 2).to(device)
    obs = torch.randn(4, 50, 10, generator=torch_gen, device=device)
    act = torch.rand(4, 50, 2, generator=torch_gen, device=device) * 2 - 1
    out = r(obs, act)
    assert out.shape == (4, 50)
    # batched evaluation = one (obs, act) at a time, and the reward depends on the action
    torch.testing.assert_close(out[2, 7], r(obs[2, 7][None], act[2, 7][None])[0])
    assert not torch.allclose(out, r(obs, -act))


def test_bad_inputs_of_the_continuous_trainer():
    env = gym.make("Reacher-v5")
    demos = collect_trajectories(env, noisy(0.3), 2, 0)
    cfg = ContinuousConfig(env_steps=10, bc_steps=1)
    with pytest.raises(ValueError, match="method must be one of"):
        train_continuous("GAIL", demos, [], cfg, 0)
    with pytest.raises(ValueError, match=r"lam .* must be >= 0"):
        train_continuous("AIHF", demos, [(demos[0], demos[1])], ContinuousConfig(lam=-1.0), 0)
    with pytest.raises(ValueError, match="demos is empty"):
        train_continuous("ML-IRL", [], [], cfg, 0)
    with pytest.raises(ValueError, match="pairs is empty"):
        train_continuous("AIHF", demos, [], cfg, 0)
    grid_traj = Trajectory(np.zeros(30, np.int64), np.zeros(30, np.int64), np.zeros(30))
    with pytest.raises(ValueError, match="different environment"):
        train_continuous("BC", [grid_traj], [], cfg, 0)
    with pytest.raises(ValueError, match="different environment"):
        train_continuous("AIHF", demos, [(grid_traj, grid_traj)], cfg, 0)


def test_a_short_aihf_run_returns_a_working_actor():
    env = gym.make("Reacher-v5")
    demos = collect_trajectories(env, noisy(0.3), 3, 0)
    pairs = [(demos[0], demos[1])]
    cfg = ContinuousConfig(
        env_steps=120, start_steps=60, reward_every=50, reward_steps=2, bc_steps=20, batch=32
    )
    actor, _ = train_continuous("AIHF", demos, pairs, cfg, seed=0)
    a = actor(torch.zeros(5, 10))[2]
    assert a.shape == (5, 2) and torch.all(a.abs() <= 1)
    # the SAC steps moved the actor away from the behaviour-cloned π_0 it starts from, reproducibly
    bc, _ = train_continuous("BC", demos, pairs, cfg, seed=0)
    obs = torch.as_tensor(np.concatenate([d.observations for d in demos]), dtype=torch.float32)
    again, _ = train_continuous("AIHF", demos, pairs, cfg, seed=0)
    with torch.no_grad():
        assert not torch.allclose(actor(obs)[2], bc(obs)[2], atol=1e-4)
        assert_identical(actor(obs)[2].numpy(), again(obs)[2].numpy())
