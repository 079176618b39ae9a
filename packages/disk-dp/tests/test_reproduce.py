"""The reproduction's configuration and its claims at smoke scale."""

from __future__ import annotations

import numpy as np
import pytest
from disk_dp.quadratic import noisy_quadratic_problem
from disk_dp.reproduce import QUAD_METHODS, Case, CaseRecord, Config, Margins, QuadRecord, quadratic_run, run
from disk_dp.reproduce.claims import SOURCES

pytestmark = pytest.mark.usefixtures("torch_one_thread")


def test_scales_and_validation():
    q, f, s = Config.quick(), Config.full(), Config.smoke()
    assert q.methods == ("DP-SGD", "DiSK-SGD") and q.eps_values == (1.0,) and not q.tune_lr
    assert set(f.methods) >= {"DP-SGD", "DP-SGD+EMA", "DiSK-SGD", "DP-Adam", "DiSK-Adam"} and f.tune_lr
    assert s.timing_steps == 0  # wall-clock claims would break same-seed-same-numbers
    with pytest.raises(ValueError, match="methods must include DP-SGD and DiSK-SGD"):
        Config(methods=("DP-Adam",))
    with pytest.raises(ValueError, match="datasets must include 'digits'"):
        Config(datasets=("breast_cancer",))
    with pytest.raises(ValueError, match="epochs must be an integer >= 1"):
        Config(epochs=0)
    with pytest.raises(TypeError, match="tune_lr must be a bool"):
        Config(tune_lr=1)
    assert Config(margins=Margins(sgd_gain_min=0.5)).margins.sgd_gain_min == 0.5
    with pytest.raises(ValueError, match=r"eps_values must be > 0 and include 1.0"):
        Config(eps_values=(4.0,))


def test_predicted_excess_against_lyapunov_and_limits():
    """The closed-form DiSK variance equals the (x_t, e_(t-1)) system's Lyapunov solution; kappa = 1 makes
    DiSK and the EMA ablation DP-SGD."""
    import scipy.linalg
    from disk_dp.quadratic import observation_noise, predicted_excess

    prob = noisy_quadratic_problem(200, 6, 10.0, seed=1)
    noise = observation_noise(prob, q=0.2, sigma=1.0, clip=1.0, batch=40)
    lr, kappa = 0.8, 0.6
    out = predicted_excess(prob.hessian, noise, lr=lr, kappa=kappa)
    lam, vecs = np.linalg.eigh(prob.hessian)
    s = np.diag(vecs.T @ noise @ vecs)
    b = 1 - kappa
    ref = 0.0
    for l_, s_ in zip(lam, s, strict=True):
        a_mat = np.array([[1 - lr * l_, -lr * b], [0.0, b]])
        b_vec = np.array([[-lr * kappa], [kappa]])
        ref += 0.5 * l_ * scipy.linalg.solve_discrete_lyapunov(a_mat, s_ * b_vec @ b_vec.T)[0, 0]
    assert out["DiSK-SGD"] == pytest.approx(ref, rel=1e-10)
    assert 0 < out["ratio"] < 1
    one = predicted_excess(prob.hessian, noise, lr=lr, kappa=1.0)
    assert one["ratio"] == pytest.approx(1.0) and one["DP-SGD+EMA"] == pytest.approx(one["DP-SGD"])
    with pytest.raises(ValueError, match="lr \\* lam_max < 2"):
        predicted_excess(prob.hessian, noise, lr=100.0, kappa=0.5)


def test_quadratic_run_decreases_excess_loss():
    cfg = Config(quad_n=300, quad_d=10, quad_steps=60, quad_sigma=0.5)
    for method in QUAD_METHODS:
        curve = quadratic_run(method, cfg, 0, "cpu")
        assert curve.shape == (60,) and np.all(curve >= 0)
        assert curve[-10:].mean() < 0.5 * curve[0]


@pytest.mark.slow
def test_smoke_run_has_every_claim():
    report = run(Config.smoke(), seed=0)
    names = {c.name for c in report.claims}
    assert names == {
        "disk-sgd-beats-dp-sgd-eps1",
        "quadratic-disk-vs-dp-sgd",
        "quadratic-matches-filter-algebra",
        "quadratic-disk-vs-ema",
        "privacy-parity-disk-dp-sgd",
        "accountant-matches-reference",
    }
    assert names <= set(SOURCES)
    case = Case("digits", 1.0, "DiSK-SGD")
    assert str(case) == "digits/eps=1/DiSK-SGD"  # the results.json key
    assert isinstance(report.metrics["classification"][case], CaseRecord)
    assert isinstance(report.metrics["quadratic"]["DP-SGD"], QuadRecord)
    by = {c.name: c for c in report.claims}
    assert by["privacy-parity-disk-dp-sgd"].observed == 0.0
    assert by["accountant-matches-reference"].observed < 1e-6
