"""Soft value iteration, occupancies, the AIHF objective and its gradient against independent computations."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from aihf.data import Trajectory, bt_label, collect_preferences, collect_trajectories
from aihf.envs import ENV_ID, FeatureGridEnv
from aihf.tabular import (
    TabularMDP,
    aihf_objective,
    aihf_tabular,
    behaviour_cloning,
    bt_reward,
    demo_log_likelihood,
    feature_expectation,
    hard_value_iteration,
    ml_irl_tabular,
    policy_return,
    rlhf_tabular,
    soft_value_iteration,
    state_occupancy,
    tabular_policy,
)
from shared_testing import assert_gradient


@pytest.fixture(scope="module")
def grid():
    env = gym.make(ENV_ID)
    mdp = TabularMDP.from_env(env)
    expert = soft_value_iteration(mdp.P, env.unwrapped.true_reward(), 0.1, mdp.horizon).policy
    mixed = 0.6 * expert + 0.4 / 4
    demos = collect_trajectories(env, tabular_policy(expert), 6, seed=1)
    pairs = collect_preferences(env, lambda g: tabular_policy(mixed), 5, seed=2)
    return env, mdp, expert, demos, pairs


def _regularised_value_brute_force(P, r, policy, beta, s0):
    """E[Σ_t r(s_t) − β KL(π_t(·|s_t) ‖ uniform)] by enumerating every (action, next state) path."""
    H, _, A = policy.shape

    def value(s: int, t: int) -> float:
        if t == H:
            return 0.0
        pi = policy[t, s]
        kl = float(np.sum(pi * np.log(np.maximum(pi, 1e-300) * A)))
        total = r[s] - beta * kl
        for a in range(A):
            for s2 in np.nonzero(P[s, a])[0]:
                total += pi[a] * P[s, a, s2] * value(int(s2), t + 1)
        return total

    return value(s0, 0)


def test_soft_vi_against_brute_force_enumeration_on_3x3(rng):
    env = FeatureGridEnv(size=3, n_hazard=2, n_mud=2, horizon=3)
    P, r, beta = env.transition_matrix(), env.true_reward() + rng.normal(0, 0.3, 9), 0.5
    svi = soft_value_iteration(P, r, beta, 3)
    for s0 in (0, 4, 7):
        assert _regularised_value_brute_force(P, r, svi.policy, beta, s0) == pytest.approx(
            svi.V[0, s0], abs=1e-12
        )
    for _ in range(20):  # no other policy has a higher regularised value
        other = rng.dirichlet(np.ones(4), size=(3, 9))
        assert _regularised_value_brute_force(P, r, other, beta, 0) <= svi.V[0, 0] + 1e-12


def test_bellman_residual_and_normalisation(rng):
    env = FeatureGridEnv()
    P, r, beta = env.transition_matrix(), rng.normal(size=64), 0.1
    svi = soft_value_iteration(P, r, beta, 30)
    np.testing.assert_allclose(svi.policy.sum(axis=2), 1.0, atol=1e-12)
    for t in range(30):
        q = r[:, None] + P @ svi.V[t + 1]
        v = beta * np.log(np.mean(np.exp(q / beta), axis=1))
        assert np.max(np.abs(v - svi.V[t])) < 1e-8
        np.testing.assert_allclose(svi.Q[t], q, atol=1e-10)


def test_small_beta_approaches_hard_value_iteration(rng):
    env = FeatureGridEnv()
    P, r = env.transition_matrix(), rng.normal(size=64)
    Qh, Vh = hard_value_iteration(P, r, 30)
    beta = 1e-3
    svi = soft_value_iteration(P, r, beta, 30)
    assert np.all(svi.V[0] <= Vh[0] + 1e-9)
    assert np.all(svi.V[0] >= Vh[0] - beta * 30 * np.log(4) - 1e-9)
    tiny = soft_value_iteration(P, r, 1e-6, 30)  # stable log-sum-exp: no overflow, greedy policy
    assert np.all(np.isfinite(tiny.policy))
    gap = np.sort(Qh[0], axis=1)
    clear = gap[:, -1] - gap[:, -2] > 1e-3
    assert np.array_equal(tiny.policy[0].argmax(axis=1)[clear], Qh[0].argmax(axis=1)[clear])


def test_zero_reward_gives_the_reference_policy(rng):
    P = FeatureGridEnv().transition_matrix()
    assert np.allclose(soft_value_iteration(P, np.zeros(64), 0.1, 5).policy, 0.25)
    ref = rng.dirichlet(np.ones(4), size=64)
    np.testing.assert_allclose(
        soft_value_iteration(P, np.zeros(64), 0.1, 5, np.log(ref)).policy[2], ref, atol=1e-12
    )


def test_exact_return_matches_env_rollouts(grid):
    env, mdp, expert, _, _ = grid
    r = env.unwrapped.true_reward()
    exact = policy_return(mdp.P, expert, mdp.rho0, r)
    trajs = collect_trajectories(env, tabular_policy(expert), 400, seed=5)
    rets = np.array([t.true_return for t in trajs])
    assert abs(rets.mean() - exact) < 4 * rets.std() / np.sqrt(len(rets))
    d = state_occupancy(mdp.P, expert, mdp.rho0)
    np.testing.assert_allclose(d.sum(axis=1), 1.0)


def test_state_occupancy_matches_the_forward_recursion_written_out(rng):
    S, A, H = 5, 3, 4
    P = rng.random((S, A, S))
    P /= P.sum(axis=2, keepdims=True)
    policy = rng.random((H, S, A))
    policy /= policy.sum(axis=2, keepdims=True)
    rho0 = rng.dirichlet(np.ones(S))
    want = np.zeros((H, S))
    want[0] = rho0
    for t in range(H - 1):
        for s in range(S):
            for a in range(A):
                want[t + 1] += want[t, s] * policy[t, s, a] * P[s, a]
    np.testing.assert_allclose(state_occupancy(P, policy, rho0), want, rtol=1e-12, atol=1e-15)


def test_outer_gradient_matches_finite_differences(grid, rng):
    _, mdp, _, demos, pairs = grid
    theta = rng.normal(0, 0.5, 3)

    def f(th):
        return aihf_objective(th, mdp, demos, pairs, lam=5.0, beta=0.3)[0]

    assert_gradient(f, aihf_objective(theta, mdp, demos, pairs, lam=5.0, beta=0.3)[1], theta, eps=1e-5)


def test_one_hot_gradient_matches_finite_differences(grid, rng):
    _, mdp, _, demos, pairs = grid
    oh = TabularMDP(mdp.P, np.eye(64), mdp.rho0, mdp.horizon)
    theta = rng.normal(0, 0.3, 64)
    g = aihf_objective(theta, oh, demos, pairs, lam=2.0, beta=0.5)[1]
    assert_gradient(lambda th: aihf_objective(th, oh, demos, pairs, 2.0, 0.5)[0], g, theta, eps=1e-5)


def test_ml_irl_identity_on_the_expected_log_likelihood(grid, rng):
    """E_{τ∼expert}[Σ_t log π_θ(a_t|s_t)] (exact, by occupancies) equals (μ_E·θ − V_0(s_0))/β − H log|A|
    and its
    finite-difference gradient is the feature-difference formula (μ_E − μ_θ)/β."""
    _env, mdp, expert, _, _ = grid
    beta = 0.2
    d_e = state_occupancy(mdp.P, expert, mdp.rho0)
    mu_e = d_e.sum(axis=0) @ mdp.phi

    def expected_loglik(th):
        logp = soft_value_iteration(mdp.P, mdp.phi @ th, beta, mdp.horizon).log_policy
        return float(np.sum(d_e[:, :, None] * expert * logp))

    theta = rng.normal(0, 0.5, 3)
    svi = soft_value_iteration(mdp.P, mdp.phi @ theta, beta, mdp.horizon)
    assert expected_loglik(theta) == pytest.approx(
        (mu_e @ theta - svi.V[0, 0]) / beta - mdp.horizon * np.log(4), rel=1e-10
    )
    formula = (mu_e - feature_expectation(mdp.P, svi.policy, mdp.rho0, mdp.phi)) / beta
    assert_gradient(expected_loglik, formula, theta, eps=1e-5)


def test_demo_log_likelihood_is_the_per_step_sum(grid):
    _, mdp, _, demos, _ = grid
    theta = np.array([0.5, -0.3, 0.1])
    logp = soft_value_iteration(mdp.P, mdp.phi @ theta, 0.1, mdp.horizon).log_policy
    manual = np.mean(
        [
            sum(logp[t, s, a] for t, (s, a) in enumerate(zip(d.observations, d.actions, strict=True)))
            for d in demos
        ]
    )
    assert demo_log_likelihood(theta, mdp, demos, 0.1) == pytest.approx(manual, rel=1e-12)


def test_preference_gradient_matches_autograd(grid, rng):
    torch = pytest.importorskip("torch")
    _, mdp, _, _, pairs = grid
    theta = rng.normal(0, 0.5, 3)
    value, grad = aihf_objective(theta, mdp, [], pairs, lam=3.0, beta=0.1)
    t = torch.tensor(theta, requires_grad=True)
    phi = torch.tensor(mdp.phi)
    ret = lambda tr: phi[torch.as_tensor(tr.observations)].sum(0) @ t  # noqa: E731
    loss = 3.0 * torch.stack([torch.nn.functional.logsigmoid(ret(w) - ret(lo)) for w, lo in pairs]).mean()
    loss.backward()
    assert value == pytest.approx(float(loss.detach()), rel=1e-12)
    np.testing.assert_allclose(grad, t.grad.numpy(), rtol=1e-10)


def test_bt_labels_reproduce_sigmoid_frequencies(rng):
    a = Trajectory(np.zeros(3, dtype=np.int64), np.zeros(3, dtype=np.int64), np.array([1.0, 0.0, 0.0]))
    b = Trajectory(np.ones(3, dtype=np.int64), np.zeros(3, dtype=np.int64), np.array([0.0, 0.0, 0.0]))
    n = 4000
    wins = sum(bt_label(a, b, rng)[0] is a for _ in range(n))
    p = 1 / (1 + np.exp(-1.0))
    assert abs(wins / n - p) < 4 * np.sqrt(p * (1 - p) / n)


def test_special_cases(grid):
    _, mdp, _, demos, pairs = grid
    ml = ml_irl_tabular(mdp, demos, steps=30)
    assert np.array_equal(aihf_tabular(mdp, demos, pairs, 0.0, steps=30).theta, ml.theta)  # λ = 0
    assert np.array_equal(aihf_tabular(mdp, demos, [], 7.0, steps=30).theta, ml.theta)  # P = ∅
    no_demos = aihf_tabular(mdp, [], pairs, 1.0, steps=30, beta=0.1)
    assert np.array_equal(no_demos.theta, bt_reward(mdp, pairs, steps=30))  # D = ∅: the BT fit
    rl = rlhf_tabular(mdp, demos, pairs, steps=30, sft=False)
    np.testing.assert_allclose(rl.policy, no_demos.policy)


def test_learning_improves_the_objective_and_recovers_the_expert(grid):
    env, mdp, _, demos, pairs = grid
    fit = aihf_tabular(mdp, demos, pairs, 20.0)
    assert fit.objective[-1] > fit.objective[0] + 1.0
    r = env.unwrapped.true_reward()
    exp_pol = soft_value_iteration(mdp.P, r, 0.1, mdp.horizon).policy
    j = [policy_return(mdp.P, p, mdp.rho0, r) for p in (np.full_like(exp_pol, 0.25), fit.policy, exp_pol)]
    assert (j[1] - j[0]) / (j[2] - j[0]) > 0.9


def test_behaviour_cloning_counts():
    mdp = TabularMDP.from_env(FeatureGridEnv(horizon=3))
    demo = Trajectory(np.array([0, 1, 1]), np.array([1, 2, 2]), np.zeros(3))
    pi = behaviour_cloning(mdp, [demo])
    np.testing.assert_allclose(pi[0, 1], [1 / 6, 1 / 6, 3 / 6, 1 / 6])
    np.testing.assert_allclose(pi[2, 0], [1 / 5, 2 / 5, 1 / 5, 1 / 5])
    np.testing.assert_allclose(pi[1, 5], 0.25)


def test_bad_inputs(grid):
    _, mdp, _, demos, pairs = grid
    with pytest.raises(ValueError, match=r"lam \(λ.* must be a finite number >= 0"):
        aihf_tabular(mdp, demos, pairs, -1.0)
    with pytest.raises(ValueError, match="both terms are empty"):
        aihf_tabular(mdp, [], [], 1.0)
    with pytest.raises(ValueError, match="demos is empty"):
        ml_irl_tabular(mdp, [])
    with pytest.raises(ValueError, match="pairs is empty"):
        rlhf_tabular(mdp, demos, [])
    with pytest.raises(ValueError, match="beta must be a finite number > 0"):
        soft_value_iteration(mdp.P, np.zeros(64), 0.0, 3)
    reacher_like = Trajectory(np.zeros((30, 10)), np.zeros((30, 2)), np.zeros(30))
    with pytest.raises(ValueError, match="integer state indices"):
        aihf_tabular(mdp, [reacher_like], pairs, 1.0)
    with pytest.raises(ValueError, match="integer state indices"):
        aihf_tabular(mdp, demos, [(reacher_like, reacher_like)], 1.0)
    with pytest.raises(ValueError, match="length 3 != horizon 30"):
        aihf_tabular(mdp, [Trajectory(np.zeros(3, np.int64), np.zeros(3, np.int64), np.zeros(3))], [], 0.0)
    with pytest.raises(TypeError, match="must be a Trajectory"):
        aihf_tabular(mdp, ["not a trajectory"], [], 0.0)  # type: ignore[list-item]
    with pytest.raises(ValueError, match="same length"):
        Trajectory(np.zeros(3), np.zeros(2), np.zeros(3))


def test_soft_vi_with_huge_rewards_keeps_rows_normalised_or_refuses():
    """Issue 23: r = 1e300 gave rows summing to 4 (log|A| rounded away); now refused, and 1e12 is exact."""
    P = np.full((3, 4, 3), 1.0 / 3)
    with pytest.raises(ValueError, match="overflows float64"):
        soft_value_iteration(P, np.full(3, 1e300), beta=0.1, horizon=5)
    pol = soft_value_iteration(P, np.full(3, 1e15), beta=0.1, horizon=5).policy  # z ~ 5e16: log 4 matters
    np.testing.assert_allclose(pol.sum(axis=2), 1.0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(pol, 0.25, atol=1e-12)  # a constant reward leaves π = π_ref


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"r": np.array([0.0, np.nan, 0.0])}, "r must be finite"),
        ({"r": np.zeros(4)}, r"r must have shape \(3,\) or \(3, 4\)"),
        ({"beta": 0.0}, "beta must be a finite number > 0"),
        ({"beta": float("nan")}, "beta must be a finite number > 0"),
        ({"horizon": 0}, "horizon must be an integer >= 1"),
        ({"P": np.full((3, 4, 3), 0.5)}, "each P"),
        ({"P": np.zeros((3, 4))}, r"P must have shape \(S, A, S\)"),
        ({"log_ref": np.zeros((3, 3))}, "log_ref must have shape"),
        ({"log_ref": np.full((3, 4), -np.inf)}, "some finite entry per state"),
    ],
)
def test_soft_vi_refuses_bad_input_naming_the_argument(kwargs, match):
    args = {"P": np.full((3, 4, 3), 1.0 / 3), "r": np.zeros(3), "beta": 0.1, "horizon": 5} | kwargs
    with pytest.raises(ValueError, match=match):
        soft_value_iteration(**args)


def test_soft_vi_refuses_a_non_integer_horizon_as_a_type_error():
    P = np.full((3, 4, 3), 1.0 / 3)
    with pytest.raises(TypeError, match=r"horizon must be an integer >= 1, got 2.5 \(float\)"):
        soft_value_iteration(P, np.zeros(3), beta=0.1, horizon=2.5)


def test_occupancy_and_hard_vi_refuse_bad_input():
    P = np.full((3, 4, 3), 1.0 / 3)
    with pytest.raises(ValueError, match="policy must have shape"):
        state_occupancy(P, np.full((5, 3, 3), 1 / 3), np.full(3, 1 / 3))
    with pytest.raises(ValueError, match="each policy"):
        state_occupancy(P, np.full((5, 3, 4), 0.5), np.full(3, 1 / 3))
    with pytest.raises(ValueError, match="rho0 must be a distribution"):
        state_occupancy(P, np.full((5, 3, 4), 0.25), np.ones(3))
    with pytest.raises(ValueError, match="r must be finite"):
        hard_value_iteration(P, np.array([np.inf, 0, 0]), 5)
