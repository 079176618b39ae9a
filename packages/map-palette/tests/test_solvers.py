"""Solvers against independent references: Gaussian closed forms, scipy's QP and primal KL solutions, the LP
oracle, torch's Adam (the official optimiser), and cyclic coordinate ascent."""

from __future__ import annotations

import numpy as np
import pytest
from map_palette.data import GAUSSIAN_MU, GAUSSIAN_SIGMA, gaussian_rewards
from map_palette.dual import kl_ceiling
from map_palette.gaussian import gaussian_dual, gaussian_lambda_star, gaussian_solve
from map_palette.solvers import (
    BOUNDARY_TOL,
    adam_log_ascent,
    feasibility_margin,
    is_feasible,
    sequential_lambda,
    solve_lambda,
)
from scipy.optimize import minimize


def test_one_gaussian_value_closed_form() -> None:
    for c in (-0.3, 0.0, 0.7, 2.0):
        expect = max(0.0, (c - 0.2) / 1.5**2)
        assert gaussian_lambda_star([0.2], [[1.5**2]], [c])[0] == pytest.approx(expect, abs=1e-12)
        assert gaussian_solve([0.2], [[1.5**2]], [c])[0] == pytest.approx(expect, abs=1e-8)


def test_multi_value_gaussian_matches_scipy_qp() -> None:
    rng = np.random.default_rng(3)
    for _ in range(10):
        c = GAUSSIAN_MU + rng.uniform(-0.5, 1.0, size=3)
        qp = minimize(
            lambda lam, c=c: -gaussian_dual(lam, GAUSSIAN_MU, GAUSSIAN_SIGMA, c)[0],
            np.ones(3),
            jac=lambda lam, c=c: -gaussian_dual(lam, GAUSSIAN_MU, GAUSSIAN_SIGMA, c)[1],
            method="SLSQP",
            bounds=[(0, None)] * 3,
            options={"ftol": 1e-14, "maxiter": 500},
        )
        star = gaussian_lambda_star(GAUSSIAN_MU, GAUSSIAN_SIGMA, c)
        assert star == pytest.approx(qp.x, abs=1e-6)
        assert gaussian_solve(GAUSSIAN_MU, GAUSSIAN_SIGMA, c) == pytest.approx(star, abs=1e-7)


def test_samples_approach_the_gaussian_optimum() -> None:
    R = gaussian_rewards(20_000, seed=0)
    c = GAUSSIAN_MU + np.array([0.5, 0.3, -0.1])
    star = gaussian_lambda_star(GAUSSIAN_MU, GAUSSIAN_SIGMA, c)
    sol = solve_lambda(R, c)
    assert np.linalg.norm(sol.lam - star) / np.linalg.norm(star) < 0.05 and sol.lam[2] == 0.0
    assert sol.realized[:2] == pytest.approx(c[:2], abs=1e-10) and sol.realized[2] >= c[2]


def test_dual_matches_the_primal_solved_by_scipy() -> None:
    """min_w KL(w ‖ uniform) s.t. R w ≥ c, w in the simplex (SLSQP over n = 60 weights)."""
    rng = np.random.default_rng(5)
    R = rng.standard_normal((2, 60))
    c = np.array([0.3, 0.2])
    n = R.shape[1]
    kl = lambda w: float(np.sum(w * np.log(np.maximum(w, 1e-300) * n)))  # noqa: E731
    res = minimize(
        kl,
        np.full(n, 1 / n),
        jac=lambda w: np.log(np.maximum(w, 1e-300) * n) + 1,
        method="SLSQP",
        bounds=[(0, 1)] * n,
        constraints=[
            {"type": "eq", "fun": lambda w: w.sum() - 1},
            {"type": "ineq", "fun": lambda w: R @ w - c},
        ],
        options={"ftol": 1e-14, "maxiter": 1000},
    )
    sol = solve_lambda(R, c)
    assert sol.kl == pytest.approx(res.fun, abs=1e-6)
    w = np.exp(sol.lam @ R - (sol.lam @ R).max())
    assert w / w.sum() == pytest.approx(res.x, abs=1e-4)


@pytest.mark.filterwarnings("ignore:effective sample size")
def test_lp_oracle_and_dual_agree_near_the_hull_boundary() -> None:
    R = gaussian_rewards(400, seed=2)
    rng = np.random.default_rng(7)
    checked = 0
    for _ in range(100):
        d = rng.uniform(0, 1, size=3)
        c = R.mean(axis=1) + rng.uniform(0.5, 2.5) * d / d.max() * R.std(axis=1)
        if np.any(c >= R.max(axis=1)):
            continue
        t = feasibility_margin(R, c)
        if abs(t) < BOUNDARY_TOL:
            continue
        sol = solve_lambda(R, c, lp_margin=t)
        if t > 0:
            assert not sol.dual_exceeded_ceiling and np.all(sol.realized >= c - 1e-6)
        else:
            assert sol.dual_exceeded_ceiling and sol.status == "infeasible"
        checked += 1
    assert checked > 60


def test_per_prompt_lp_is_the_block_simplex_problem() -> None:
    """Per prompt, the best reachable level of one value is the mean of each prompt's maximum."""
    rng = np.random.default_rng(0)
    R = rng.standard_normal((1, 40))
    ids = np.repeat(np.arange(8), 5)
    top = R[0].reshape(8, 5).max(axis=1).mean()
    assert is_feasible(R, [top - 1e-3], normalization="per_prompt", prompt_ids=ids)
    assert is_feasible(R, [top - 1e-3]) and not is_feasible(R[:, :5], [R[0, :5].max() + 0.0])
    with pytest.raises(ValueError, match="largest achievable"):
        solve_lambda(R, [top + 1e-3], normalization="per_prompt", prompt_ids=ids)


@pytest.mark.slow
def test_numpy_adam_is_torch_adam_on_log_lambda() -> None:
    """The official optimiser (torch.optim.Adam on τ = log λ, lr 0.1, from λ = 1) step for step."""
    import torch

    R = gaussian_rewards(500, seed=1)
    c = R.mean(axis=1) + np.array([0.4, 0.2, 0.1])
    Rt, ct = torch.tensor(R), torch.tensor(c)
    tau = torch.zeros(3, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.Adam([tau], lr=0.1)
    for _ in range(150):
        opt.zero_grad()
        lam = torch.exp(tau)
        loss = -(lam @ ct - torch.logsumexp(lam @ Rt, 0) + np.log(R.shape[1]))
        loss.backward()
        opt.step()
    ours, steps, _, diverged = adam_log_ascent(
        R, c, None, lam0=np.zeros(3), free=np.arange(3), max_iter=150, lr=0.1
    )
    assert not diverged and steps == 150
    assert ours == pytest.approx(torch.exp(tau).detach().numpy(), rel=1e-9)


def test_official_solver_never_reaches_exact_zero() -> None:
    R = gaussian_rewards(2000, seed=0)
    c = GAUSSIAN_MU + np.array([0.5, 0.3, -0.1])
    exact, adam = solve_lambda(R, c), solve_lambda(R, c, solver="adam_log")
    assert exact.lam[2] == 0.0 and 0 < adam.lam[2] < 0.1
    assert adam.lam[:2] == pytest.approx(exact.lam[:2], rel=0.05)


def test_sequential_rounds_converge_and_one_round_does_not() -> None:
    R = gaussian_rewards(5000, seed=4)
    c = GAUSSIAN_MU + np.array([0.5, 0.3, -0.1])
    star = solve_lambda(R, c).lam
    _, hist = sequential_lambda(R, c, rounds=8)
    err = np.linalg.norm(hist - star, axis=1) / np.linalg.norm(star)
    assert err[0] > 5e-2 and err[4] < 1e-2 and err[-1] < 1e-3 and np.all(np.diff(err) <= 1e-12)


def test_infeasible_dual_exceeds_the_kl_ceiling() -> None:
    R = gaussian_rewards(1000, seed=0)
    sol = solve_lambda(R, np.array([2.0, 2.0, 1.0]))
    assert sol.status == "infeasible" and not sol.feasible and sol.lp_margin < 0
    assert sol.dual_exceeded_ceiling and sol.g > kl_ceiling(1000)


def test_constant_row_and_warnings() -> None:
    R = np.vstack([np.full(50, 2.0), np.linspace(0, 1, 50)])
    sol = solve_lambda(R, [1.5, 0.6])
    assert sol.lam[0] == 0.0 and sol.realized[1] == pytest.approx(0.6, abs=1e-9)
    with pytest.raises(ValueError, match="above the largest achievable"):
        solve_lambda(R, [2.5, 0.6])
    with pytest.warns(UserWarning, match="degenerate"):
        solve_lambda(R[:, :2], [1.0, 0.01])
    with pytest.warns(UserWarning, match="effective sample size"):
        solve_lambda(R, [1.5, 0.995])


def test_bad_inputs() -> None:
    R = gaussian_rewards(100, seed=0)
    c = R.mean(axis=1)
    with pytest.raises(ValueError, match="R must be finite"):
        solve_lambda(np.where(R > 1, np.inf, R), c)
    with pytest.raises(ValueError, match="R must be finite"):
        solve_lambda(np.where(R > 1, np.nan, R), c)
    with pytest.raises(ValueError, match="no samples"):
        solve_lambda(np.zeros((3, 0)), c)
    with pytest.raises(ValueError, match=r"c\[1\] = 99 is above the largest achievable"):
        solve_lambda(R, [0.0, 99.0, 0.0])
    with pytest.raises(ValueError, match="solver"):
        solve_lambda(R, c, solver="newton")
    with pytest.raises(ValueError, match="rounds"):
        sequential_lambda(R, c, rounds=0)
    with pytest.raises(TypeError, match="R must be a"):
        solve_lambda([["a", "b"]], [0.0])
