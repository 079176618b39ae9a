"""Riccati recursions and the exact LEQR criterion against independent computations."""

from __future__ import annotations

import pickle
import re
from typing import Any

import numpy as np
import pytest
import scipy.linalg
from rslqr.riccati import (
    RiccatiBreakdown,
    is_well_posed,
    leqr_gains,
    policy_cost,
    policy_value,
    stationary_leqr,
)
from rslqr.systems import LEQRSystem, system_a, system_b


def random_problem(rng: np.random.Generator, n: int, m: int, T: int) -> dict[str, Any]:
    A = rng.standard_normal((n, n))
    A *= 0.95 / max(abs(np.linalg.eigvals(A)))
    B = rng.standard_normal((n, m))
    L = rng.standard_normal((n, n - 1))
    Q = L @ L.T  # singular PSD on purpose
    R = np.eye(m) + 0.3 * np.diag(rng.random(m))
    QT = np.eye(n) + 0.1 * L @ L.T
    V = rng.standard_normal((n, n))
    W = 0.05 * (np.eye(n) + 0.2 * V @ V.T)
    return {"A": A, "B": B, "Q": Q, "R": R, "QT": QT, "W": W, "T": T}


def brute_force_cost(
    A: np.ndarray,
    B: np.ndarray,
    Q: np.ndarray,
    R: np.ndarray,
    QT: np.ndarray,
    W: np.ndarray,
    K: np.ndarray,
    gamma: float,
    sigma: float,
    x0: np.ndarray,
) -> float:
    """(2/γ) log E exp(γC/2) with all noise (w_0..w_{T-1}, η_0..η_{T-1}) stacked into one Gaussian ζ.

    C = ζᵀ M ζ + 2 bᵀ ζ + c exactly, so the expectation is one determinant and one solve; no
    recursion is shared with the implementation under test.
    """
    n, m = B.shape
    T = K.shape[0]
    D = T * n + T * m
    Xc, Xz = np.eye(n), np.zeros((n, D))
    M, b, c = np.zeros((D, D)), np.zeros(D), 0.0
    for t in range(T):
        Ew = np.zeros((n, D))
        Ew[:, t * n : (t + 1) * n] = np.eye(n)
        Ee = np.zeros((m, D))
        Ee[:, T * n + t * m : T * n + (t + 1) * m] = np.eye(m)
        Uc, Uz = K[t] @ Xc, K[t] @ Xz + Ee
        M += Xz.T @ Q @ Xz + Uz.T @ R @ Uz
        b += Xz.T @ Q @ Xc @ x0 + Uz.T @ R @ Uc @ x0
        c += x0 @ (Xc.T @ Q @ Xc + Uc.T @ R @ Uc) @ x0
        Xc, Xz = A @ Xc + B @ Uc, A @ Xz + B @ Uz + Ew
    M += Xz.T @ QT @ Xz
    b += Xz.T @ QT @ Xc @ x0
    c += x0 @ Xc.T @ QT @ Xc @ x0
    Wh = scipy.linalg.sqrtm(W).real
    Sh = scipy.linalg.block_diag(*([Wh] * T + [sigma * np.eye(m)] * T))
    H = Sh @ M @ Sh
    if gamma == 0.0:
        return float(c + np.trace(H))
    G = np.eye(D) - gamma * H
    if np.linalg.eigvalsh(0.5 * (G + G.T))[0] <= 0:
        return float("inf")
    logdet = np.linalg.slogdet(G)[1]
    sb = Sh @ b
    return float(c - logdet / gamma + gamma * sb @ np.linalg.solve(G, sb))


def textbook_lqr(A, B, Q, R, QT, W, T):  # type: ignore[no-untyped-def]
    """Risk-neutral finite-horizon LQR, written independently of the package."""
    P = QT
    Ks, c = [], 0.0
    for _ in range(T):
        c += np.trace(W @ P)
        K = -np.linalg.inv(R + B.T @ P @ B) @ B.T @ P @ A
        P = Q + A.T @ P @ A + A.T @ P @ B @ K
        Ks.append(K)
    return np.array(Ks[::-1]), P, c


@pytest.mark.parametrize("gamma", [0.08, -0.4])
@pytest.mark.parametrize("sigma", [0.0, 0.3])
@pytest.mark.parametrize(("n", "m"), [(2, 1), (3, 2)])
def test_policy_value_matches_stacked_gaussian_brute_force(
    gamma: float, sigma: float, n: int, m: int
) -> None:
    rng = np.random.default_rng(0)
    prob = random_problem(rng, n, m, T=4)
    K_opt = leqr_gains(**prob, gamma=gamma)[0]
    args = {k: v for k, v in prob.items() if k != "T"}
    n_finite = 0
    for scale in (0.0, 0.1, 0.3, 0.3, 3.0):
        K = K_opt + scale * rng.standard_normal(K_opt.shape)
        x0 = rng.standard_normal(n)
        P0, c0 = policy_value(**args, K=K, gamma=gamma, sigma=sigma)
        exact = float(x0 @ P0 @ x0 + c0)
        brute = brute_force_cost(**args, K=K, gamma=gamma, sigma=sigma, x0=x0)
        if np.isinf(brute):  # both must agree on divergence, too
            assert exact == np.inf
            continue
        n_finite += 1
        assert exact == pytest.approx(brute, rel=1e-8, abs=1e-8)
    assert n_finite >= 3


@pytest.mark.parametrize("gamma", [0.2, -0.3])
def test_optimal_recursion_matches_brute_force_and_policy_value(gamma: float) -> None:
    rng = np.random.default_rng(1)
    prob = random_problem(rng, 3, 2, T=5)
    K, P, c = leqr_gains(**prob, gamma=gamma)
    args = {k: v for k, v in prob.items() if k != "T"}
    P0, c0 = policy_value(**args, K=K, gamma=gamma)
    np.testing.assert_allclose(P0, P[0], rtol=1e-10, atol=1e-12)
    assert c0 == pytest.approx(c[0], rel=1e-10)
    x0 = rng.standard_normal(3)
    brute = brute_force_cost(**args, K=K, gamma=gamma, sigma=0.0, x0=x0)
    assert x0 @ P[0] @ x0 + c[0] == pytest.approx(brute, rel=1e-8)


def test_policy_value_monte_carlo() -> None:
    # 2e5 vectorised rollouts of System A (T = 5, γ = 0.1) under a perturbed controller with
    # exploration noise. The estimator (2/γ) log mean exp(γC/2) has, by the delta method, standard
    # error (2/γ) sd(e)/(mean(e) sqrt(n)), e = exp(γC/2); we accept 5 standard errors. Its variance
    # is finite because the criterion at 2γ is finite (checked below).
    system = system_a(gamma=0.1, T=5)
    rng = np.random.default_rng(0)
    K = system.optimal_gains()[0] + 0.2 * rng.standard_normal((5, 1, 2))
    sigma, x0 = 0.3, np.array([1.0, -0.5])
    exact = policy_cost(system, K, x0, sigma)
    assert np.isfinite(policy_cost(system_a(gamma=0.2, T=5), K, x0, sigma))
    n_roll = 200_000
    _, _, C = system.simulate(K, np.tile(x0, (n_roll, 1)), sigma, rng)
    a = 0.5 * system.gamma * C
    e = np.exp(a - a.max())
    mc = 2.0 / system.gamma * (np.log(e.mean()) + a.max())
    se = 2.0 / system.gamma * e.std() / (e.mean() * np.sqrt(n_roll))
    assert se < 0.005 * exact  # the check is tight: within 0.5 % (spec) at 5 se
    assert abs(mc - exact) < 5 * se


def test_gamma_zero_is_textbook_lqr_and_expected_cost() -> None:
    rng = np.random.default_rng(2)
    prob = random_problem(rng, 3, 2, T=6)
    K, P, c = leqr_gains(**prob, gamma=0.0)
    K_ref, P0_ref, c0_ref = textbook_lqr(*(prob[k] for k in ("A", "B", "Q", "R", "QT", "W", "T")))
    np.testing.assert_allclose(K, K_ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(P[0], P0_ref, rtol=1e-10)
    assert c[0] == pytest.approx(c0_ref, rel=1e-12)
    # γ → 0 is continuous (no 1/γ blow-up in the log-det term).
    K_small, _, c_small = leqr_gains(**prob, gamma=1e-9)
    np.testing.assert_allclose(K_small, K, rtol=1e-6, atol=1e-8)
    assert c_small[0] == pytest.approx(c[0], rel=1e-6)
    # E[C] of an arbitrary noisy linear policy: Lyapunov recursion + Σ tr(W P) + σ² Σ tr(R + BᵀPB).
    A, B, Q, R, QT, W = (prob[k] for k in ("A", "B", "Q", "R", "QT", "W"))
    Kr = K + 0.5 * rng.standard_normal(K.shape)
    sigma = 0.7
    Pl, const = QT, 0.0
    for t in range(5, -1, -1):
        const += np.trace(W @ Pl) + sigma**2 * np.trace(R + B.T @ Pl @ B)
        F = A + B @ Kr[t]
        Pl = Q + Kr[t].T @ R @ Kr[t] + F.T @ Pl @ F
    P0, c0 = policy_value(A, B, Q, R, QT, W, Kr, 0.0, sigma)
    np.testing.assert_allclose(P0, Pl, rtol=1e-12)
    assert c0 == pytest.approx(const, rel=1e-12)
    _, c0s = policy_value(A, B, Q, R, QT, W, Kr, 1e-10, sigma)
    assert c0s == pytest.approx(const, rel=1e-7)


def test_stationary_solution_matches_scipy_dare() -> None:
    system = system_a()
    A, B, Q, R, W = system.A, system.B, system.Q, system.R, system.W
    P0 = stationary_leqr(A, B, Q, R, W, 0.0)
    np.testing.assert_allclose(P0, scipy.linalg.solve_discrete_are(A, B, Q, R), rtol=1e-10)
    # P = Q + Aᵀ(P⁻¹ - γW + B R⁻¹ Bᵀ)⁻¹ A is the DARE with inputs [B, W^½] and the indefinite
    # weight blockdiag(R, -I/γ), which scipy solves through its generalised eigenproblem.
    gamma = 0.2
    P_rs = stationary_leqr(A, B, Q, R, W, gamma)
    Wh = scipy.linalg.sqrtm(W).real
    P_ref = scipy.linalg.solve_discrete_are(
        A, np.hstack([B, Wh]), Q, scipy.linalg.block_diag(R, -np.eye(2) / gamma)
    )
    np.testing.assert_allclose(P_rs, P_ref, rtol=1e-9)
    # Using P_∞ as terminal cost freezes the finite-horizon recursion (System B).
    K, P, _ = system_b(gamma).optimal_gains()
    np.testing.assert_allclose(P, np.broadcast_to(P_rs, P.shape), rtol=1e-10)
    assert np.ptp(K, axis=0).max() < 1e-10


def test_scalar_closed_form_step_by_step() -> None:
    a, b, q, r, qT, w, gamma, T = 1.1, 0.5, 1.0, 0.3, 2.0, 0.2, 0.4, 6
    K, P, c = leqr_gains([[a]], [[b]], [[q]], [[r]], [[qT]], [[w]], T, gamma)
    p, cc = qT, 0.0
    for t in range(T - 1, -1, -1):
        assert P[t + 1, 0, 0] == pytest.approx(p, rel=1e-12)
        assert 1 - gamma * w * p > 0
        pt = p / (1 - gamma * w * p)
        k = -b * pt * a / (r + b * b * pt)
        cc -= np.log(1 - gamma * w * p) / gamma
        p = q + k * k * r + (a + b * k) ** 2 * pt
        assert K[t, 0, 0] == pytest.approx(k, rel=1e-12)
        assert c[t] == pytest.approx(cc, rel=1e-12)
    assert P[0, 0, 0] == pytest.approx(p, rel=1e-12)


@pytest.mark.parametrize("gamma", [0.3, -0.3])
def test_optimal_gains_beat_random_perturbations(gamma: float) -> None:
    system = system_a(gamma=gamma)
    K = system.optimal_gains()[0]
    rng = np.random.default_rng(3)
    x0 = rng.standard_normal((20, 2))
    J_star = policy_cost(system, K, x0)
    for scale in (1e-3, 0.05, 0.3):
        for _ in range(20):
            J = policy_cost(system, K + scale * rng.standard_normal(K.shape), x0)
            assert np.all(J_star - 1e-10 <= J)
            assert np.mean(J - J_star) > 0
    # Exploration noise only adds cost.
    assert np.all(policy_cost(system, K, x0, sigma=0.2) > J_star)


def test_breakdown_is_inf_or_typed_error_never_nan() -> None:
    # Scalar: γ W Q_T = 1 exactly makes I - γ W^½ P_T W^½ singular at t = T - 1.
    w, gamma = 0.5, 0.4
    qT = 1.0 / (gamma * w)
    args = ([[1.0]], [[1.0]], [[1.0]], [[1.0]], [[qT]], [[w]])
    with pytest.raises(RiccatiBreakdown, match=r"t=2: .*eigenvalue"):
        leqr_gains(*args, 3, gamma)
    with pytest.raises(ValueError, match="breaks down"):  # RiccatiBreakdown is a ValueError
        leqr_gains(*args, 3, gamma)
    with pytest.raises(RiccatiBreakdown) as info:
        leqr_gains(*args, 3, 1.5 * gamma)
    exc = info.value
    assert exc.t == 2 and exc.eigenvalue < 0
    clone = pickle.loads(pickle.dumps(exc))
    assert (clone.t, clone.eigenvalue, str(clone)) == (exc.t, exc.eigenvalue, str(exc))
    P0, c0 = policy_value(*args, np.zeros((3, 1, 1)), gamma)
    assert c0 == np.inf and np.all(P0 == 0)
    assert not is_well_posed([[qT]], [[w]], gamma)
    assert is_well_posed([[qT]], [[w]], 0.99 * gamma)
    assert is_well_posed([[qT]], [[w]], -10.0)
    # A controller that is fine for the true system but diverges under the criterion.
    system = system_a(gamma=0.2)
    K_bad = np.full((system.T, 1, 2), 3.0)  # destabilising positive feedback
    J = np.asarray(policy_cost(system, K_bad, np.zeros((4, 2))))
    assert J.shape == (4,) and np.all(np.isposinf(J))
    assert policy_cost(system, K_bad, np.ones(2)) == np.inf
    with np.errstate(all="raise"):  # no overflow/invalid warnings on the way to +inf
        assert (
            policy_value(system.A, system.B, system.Q, system.R, system.QT, system.W, 1e150 * K_bad, 0.2)[1]
            == np.inf
        )


def test_risk_seeking_never_breaks_down() -> None:
    system = system_a(gamma=-50.0)
    K, _, c = system.optimal_gains()
    assert np.all(np.isfinite(K)) and np.all(np.isfinite(c))
    # More risk seeking => lower criterion for the same policy (J is increasing in γ).
    x0 = np.array([1.0, 1.0])
    Js = np.array([policy_cost(system_a(gamma=g), K, x0, 0.1) for g in (-50.0, -1.0, 0.0, 0.3)])
    assert np.all(np.diff(Js) > 0)


def test_stationary_errors() -> None:
    with pytest.raises(ValueError, match="did not converge"):
        stationary_leqr([[2.0]], [[0.0]], [[1.0]], [[1.0]], [[0.01]], 0.0, max_iter=200)
    with pytest.raises(RiccatiBreakdown, match="fixed-point iteration"):
        stationary_leqr([[1.0, 0.2], [0.0, 0.9]], [[0.0], [0.3]], np.eye(2), [[1.0]], 0.05 * np.eye(2), 0.5)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"A": np.ones((2, 3))}, "A must be square"),
        ({"B": np.ones((3, 1))}, "B must have shape"),
        ({"R": [[0.0]]}, "R must be a symmetric positive definite matrix"),
        ({"R": [[-1.0]]}, "R must be a symmetric positive definite matrix"),
        ({"Q": -np.eye(2)}, "Q must be a symmetric positive semidefinite matrix"),
        (
            {"QT": [[1.0, 2.0], [0.0, 1.0]]},
            "QT must be a symmetric positive semidefinite matrix, got a matrix that is not symmetric",
        ),
        ({"W": np.zeros((2, 2))}, "W must be a symmetric positive definite matrix"),
        ({"W": np.eye(3)}, r"W must have shape \(2, 2\)"),
        ({"T": 0}, r"T \(the horizon\) must be an integer >= 1"),
        ({"A": [[np.nan, 0.0], [0.0, 1.0]]}, "A must have only finite entries"),
        ({"gamma": np.inf}, "gamma must be finite"),
        ({"gamma": 1.0}, "gamma=1 is too large"),
        ({"x0_cov": -np.eye(2)}, "x0_cov must be a symmetric positive semidefinite matrix"),
    ],
)
def test_system_rejects_bad_inputs(kwargs: dict[str, Any], match: str) -> None:
    base = system_a()
    fields: dict[str, Any] = {
        "A": base.A,
        "B": base.B,
        "Q": base.Q,
        "R": base.R,
        "QT": base.QT,
        "W": base.W,
        "T": base.T,
        "gamma": base.gamma,
        "x0_cov": base.x0_cov,
    }
    fields.update(kwargs)
    with pytest.raises(ValueError, match=match):
        LEQRSystem(**fields)


def test_system_refuses_a_non_integer_horizon_as_a_type_error() -> None:
    base = system_a()
    with pytest.raises(TypeError, match=r"T \(the horizon\) must be an integer >= 1, got 2.5"):
        LEQRSystem(
            A=base.A,
            B=base.B,
            Q=base.Q,
            R=base.R,
            QT=base.QT,
            W=base.W,
            T=2.5,
            gamma=base.gamma,
            x0_cov=base.x0_cov,
        )


def test_functions_reject_bad_inputs() -> None:
    with pytest.raises(ValueError, match="too large for System B"):
        system_b(gamma=0.5)
    s = system_a()
    with pytest.raises(ValueError, match=r"^T must be an integer >= 1, got 0$"):
        leqr_gains(s.A, s.B, s.Q, s.R, s.QT, s.W, 0, 0.1)
    with pytest.raises(TypeError, match=r"^T must be an integer >= 1, got True \(bool\)$"):
        leqr_gains(s.A, s.B, s.Q, s.R, s.QT, s.W, True, 0.1)
    with pytest.raises(ValueError, match=r"^gamma must be a finite number, got nan$"):
        leqr_gains(s.A, s.B, s.Q, s.R, s.QT, s.W, 3, float("nan"))
    with pytest.raises(ValueError, match="A must be square"):
        leqr_gains(np.ones((2, 3)), s.B, s.Q, s.R, s.QT, s.W, 3, 0.1)
    with pytest.raises(ValueError, match="K must have shape"):
        policy_value(s.A, s.B, s.Q, s.R, s.QT, s.W, np.zeros((3, 2, 2)), 0.1)
    with pytest.raises(ValueError, match="sigma"):
        policy_value(s.A, s.B, s.Q, s.R, s.QT, s.W, np.zeros((3, 1, 2)), 0.1, sigma=-1.0)
    with pytest.raises(ValueError, match="K must cover the horizon"):
        policy_cost(s, np.zeros((3, 1, 2)), np.zeros(2))
    with pytest.raises(ValueError, match="x0 must have shape"):
        policy_cost(s, np.zeros((s.T, 1, 2)), np.zeros(3))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"R": -np.eye(1)}, "R must be a symmetric positive definite matrix, got smallest eigenvalue -1"),
        (
            {"R": np.zeros((1, 1))},
            "R must be a symmetric positive definite matrix, got smallest eigenvalue 0",
        ),
        (
            {"Q": -5 * np.eye(2)},
            "Q must be a symmetric positive semidefinite matrix, got smallest eigenvalue -5",
        ),
        (
            {"QT": -np.eye(2)},
            "QT must be a symmetric positive semidefinite matrix, got smallest eigenvalue -1",
        ),
    ],
)
def test_indefinite_costs_are_refused_by_every_entry_point(change: dict, message: str) -> None:
    # Issue 23: R = -I, R = 0 and Q = -5I used to give finite, meaningless gains and a wrong breakdown.
    s = system_a()
    args = {"A": s.A, "B": s.B, "Q": s.Q, "R": s.R, "QT": s.QT, "W": s.W} | change
    with pytest.raises(ValueError, match=re.escape(message)):
        leqr_gains(args["A"], args["B"], args["Q"], args["R"], args["QT"], args["W"], 3, 0.1)
    K = np.zeros((3, 1, 2))
    with pytest.raises(ValueError, match=re.escape(message)):
        policy_value(args["A"], args["B"], args["Q"], args["R"], args["QT"], args["W"], K, 0.1)
    if "QT" not in change:
        with pytest.raises(ValueError, match=re.escape(message)):
            stationary_leqr(args["A"], args["B"], args["Q"], args["R"], args["W"], 0.1)


def test_system_is_immutable_and_exposes_theta() -> None:
    s = system_a()
    np.testing.assert_array_equal(s.theta, np.hstack([s.A, s.B]))
    assert s.theta.shape == (2, 3) and (s.n, s.m) == (2, 1)
    with pytest.raises(ValueError, match="read-only"):
        s.A[0, 0] = 5.0
    with pytest.raises(AttributeError):
        s.gamma = 0.3  # type: ignore[misc]
