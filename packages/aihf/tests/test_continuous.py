"""Reacher-v5 expert, SAC and the continuous trainers' input checks."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
import torch
from aihf.continuous import (
    ContinuousConfig,
    MLPReward,
    fit_bt_reward,
    reward_prefers_expert,
    train_continuous,
)
from aihf.data import Trajectory, collect_trajectories
from aihf.envs.reacher import mixed_policy, noisy, reacher_pd_expert, zero_torque
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
    with pytest.raises(ValueError, match=r"lam \(λ.* must be a finite number >= 0"):
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


def test_zero_torque_is_the_floor_and_random_lies_far_below():
    """Issue 20: zero torque, not uniform random, is Reacher's floor (random pays ~4x in control cost)."""
    env = gym.make("Reacher-v5")
    ret = {
        name: np.mean([collect_trajectories(env, p, 1, s)[0].true_return for s in range(5)])
        for name, p in (("expert", noisy(0.0)), ("zero", zero_torque()), ("random", mixed_policy(0.0)))
    }
    assert ret["random"] < ret["zero"] - 15 < ret["expert"] - 15, ret
    assert np.all(collect_trajectories(env, zero_torque(), 1, 0)[0].actions == 0)


def test_reward_ranking_uses_the_reward_it_is_given():
    """A reward that pays −distance ranks the expert above zero torque; its negation ranks it below."""

    class Distance(torch.nn.Module):
        def __init__(self, sign: float) -> None:
            super().__init__()
            self.sign = sign

        def forward(self, obs, act):
            return -self.sign * obs[..., 8:10].norm(dim=-1)

    good = reward_prefers_expert(Distance(1.0), "Reacher-v5", 6, seed=5)
    bad = reward_prefers_expert(Distance(-1.0), "Reacher-v5", 6, seed=5)
    assert good.shape == (6,) and good.dtype == bool
    assert good.mean() >= 5 / 6 and np.array_equal(bad, ~good)


def test_oracle_trains_on_the_true_reward_and_bt_fit_separates_its_pairs():
    env = gym.make("Reacher-v5")
    demos = collect_trajectories(env, noisy(0.3), 3, 0)
    cfg = ContinuousConfig(env_steps=80, start_steps=40, bc_steps=5, batch=16, bt_steps=60)
    actor, log = train_continuous("Oracle", demos, [], cfg, seed=0)
    assert log["reward"] is None and actor(torch.zeros(1, 10))[2].shape == (1, 2)
    _, log = train_continuous("ML-IRL", demos, [], cfg, seed=0)
    assert isinstance(log["reward"], MLPReward)
    worse = collect_trajectories(env, mixed_policy(0.0), 3, 10)
    pairs = [(demos[i], worse[i]) for i in range(3)]
    bt = fit_bt_reward(pairs, 10, 2, cfg, seed=0)
    with torch.no_grad():
        r = [
            [
                float(bt(torch.as_tensor(t.observations).float(), torch.as_tensor(t.actions).float()).sum())
                for t in p
            ]
            for p in pairs
        ]
    assert all(w > lo for w, lo in r)  # fitted on 3 separable pairs, it orders each of them
    with pytest.raises(ValueError, match="pairs is empty"):
        fit_bt_reward([], 10, 2, cfg, seed=0)
