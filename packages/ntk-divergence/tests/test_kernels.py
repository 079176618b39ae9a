"""The analytic NTK against closed forms, Gaussian quadrature and the properties a wrong recursion breaks."""

from __future__ import annotations

import math

import numpy as np
import pytest
from ntk_divergence.data import pd_stress_set, synthetic_sphere
from ntk_divergence.kernels import erf_expectations, fc_ntk, relu_expectations, resnet_ntk
from scipy.special import erf, roots_hermitenorm
from scipy.stats import multivariate_normal


def gauss_expectation(fn, dfn, a, b, c, order=80):
    """E[fn(u) fn(v)] and E[dfn(u) dfn(v)] by tensor Gauss-Hermite quadrature (independent oracle)."""
    z, w = roots_hermitenorm(order)
    w = w / w.sum()
    L = np.linalg.cholesky(np.array([[a, c], [c, b]]))
    Z1, Z2 = np.meshgrid(z, z, indexing="ij")
    W = np.outer(w, w)
    u = L[0, 0] * Z1
    v = L[1, 0] * Z1 + L[1, 1] * Z2
    return float((W * fn(u) * fn(v)).sum()), float((W * dfn(u) * dfn(v)).sum())


def test_relu_closed_form_numbers():
    # Cho & Saul arc-cosine values for unit variances: rho = 1, 0, -1.
    e, d = relu_expectations(1.0, 1.0, 1.0)
    assert (float(e), float(d)) == pytest.approx((0.5, 0.5))
    e, d = relu_expectations(1.0, 1.0, 0.0)
    assert (float(e), float(d)) == pytest.approx((1 / (2 * math.pi), 0.25))
    e, d = relu_expectations(1.0, 1.0, -1.0)
    assert (float(e), float(d)) == pytest.approx((0.0, 0.0), abs=1e-12)
    # rho = 1/2: phi = pi/3, E = (sqrt(3)/2 + (2pi/3)/2) / (2 pi) = 0.30116..., Edot = 1/3
    e, d = relu_expectations(4.0, 1.0, 1.0)
    assert float(e) == pytest.approx(2 * (math.sqrt(3) / 2 + math.pi / 3) / (2 * math.pi), rel=1e-12)
    assert float(d) == pytest.approx(1 / 3)


def test_erf_closed_form_numbers():
    # Williams (1997): a = b = 1, c = 1/2 -> (2/pi) arcsin(1/3); derivative term (4/pi)/sqrt(9 - 1).
    e, d = erf_expectations(1.0, 1.0, 0.5)
    assert float(e) == pytest.approx(2 / math.pi * math.asin(1 / 3), rel=1e-12)
    assert float(e) == pytest.approx(0.2163468959, rel=1e-9)
    assert float(d) == pytest.approx(4 / math.pi / math.sqrt(8), rel=1e-12)


@pytest.mark.parametrize("abc", [(1.0, 2.0, 0.7), (0.5, 3.0, -0.9), (2.0, 2.0, 1.9)])
def test_expectations_match_quadrature(abc):
    a, b, c = abc
    relu_q, _ = gauss_expectation(lambda x: np.maximum(x, 0), lambda x: x, *abc, order=400)
    e, d = relu_expectations(*abc)
    assert float(e) == pytest.approx(relu_q, rel=1e-2, abs=1e-3)
    # E[1(u > 0) 1(v > 0)] is an orthant probability: scipy's bivariate normal CDF at the origin.
    orthant = multivariate_normal([0.0, 0.0], [[a, c], [c, b]]).cdf([0.0, 0.0])
    assert float(d) == pytest.approx(orthant, rel=1e-5)
    derf = lambda x: 2 / np.sqrt(np.pi) * np.exp(-(x**2))  # noqa: E731
    erf_q = gauss_expectation(erf, derf, *abc)
    assert np.array(erf_expectations(*abc), float) == pytest.approx(erf_q, rel=1e-6)


def test_one_layer_diagonal_is_norm_squared_plus_two():
    X = np.random.default_rng(0).standard_normal((6, 4)) * 1.7
    theta, sigma = fc_ntk(X, depth=1)
    sq = (X**2).sum(axis=1)
    assert np.diag(theta) == pytest.approx(sq + 2)
    assert np.diag(sigma) == pytest.approx((sq + 1) / 2 + 1)


@pytest.mark.parametrize("depth", [1, 2, 3])
@pytest.mark.parametrize("activation", ["relu", "erf"])
def test_symmetric_psd_and_cross_blocks(depth, activation):
    X, _ = synthetic_sphere(12, 3, seed=1)
    theta, sigma = fc_ntk(X, depth=depth, activation=activation)
    assert np.allclose(theta, theta.T) and np.allclose(sigma, sigma.T)
    assert np.linalg.eigvalsh(theta)[0] > 0
    cross, _ = fc_ntk(X[:5], X[5:], depth=depth, activation=activation)
    assert cross == pytest.approx(theta[:5, 5:])


def test_homogeneity_without_bias_and_not_with():
    X = np.random.default_rng(2).standard_normal((4, 3))
    c = 2.5
    t0, _ = fc_ntk(c * X[:1], X, depth=2, bias=0.0)
    t1, _ = fc_ntk(X[:1], X, depth=2, bias=0.0)
    assert t0 == pytest.approx(c * t1)
    b0, _ = fc_ntk(c * X[:1], X, depth=2)
    b1, _ = fc_ntk(X[:1], X, depth=2)
    assert np.abs(b0 - c * b1).max() > 0.1


def test_strict_pd_with_bias_singular_without():
    X = pd_stress_set(20, 5, seed=0)
    theta, _ = fc_ntk(X, depth=2)
    assert np.linalg.eigvalsh(theta)[0] > 1e-6 * np.trace(theta) / 20
    theta0, _ = fc_ntk(X, depth=2, bias=0.0)
    assert abs(np.linalg.eigvalsh(theta0)[0]) < 1e-10


def test_resnet_one_block_diagonal_and_alpha_zero():
    """Hand-derived: B = 1, ReLU, s = |x|^2 + 1, q = s + 1: Theta(x, x) = 2 s + 1 + alpha^2 (3q/2 + s/2)
    (readout C + 1 = s + alpha^2 q/2 + 1; V: alpha^2 q/2; W, b: alpha^2 q/2; input: (1 + alpha^2/2) s).
    alpha = 0 leaves the linear network W^(0) x + b read out: Theta = 2 (x.x' + 1) + 1."""
    X = np.random.default_rng(3).standard_normal((5, 4)) * 1.3
    s = (X**2).sum(axis=1) + 1
    for alpha in (0.5, 1.0, 2.0):
        theta, sigma = resnet_ntk(X, n_blocks=1, alpha=alpha)
        assert np.diag(theta) == pytest.approx(2 * s + 1 + alpha**2 * (1.5 * (s + 1) + 0.5 * s))
        assert np.diag(sigma) == pytest.approx(s + alpha**2 * (s + 1) / 2 + 1)
    theta0, _ = resnet_ntk(X, n_blocks=3, alpha=0.0)
    assert theta0 == pytest.approx(2 * (X @ X.T + 1) + 1)


@pytest.mark.parametrize("n_blocks", [1, 2, 4])
@pytest.mark.parametrize("activation", ["relu", "erf"])
def test_resnet_symmetric_strict_pd_and_cross_blocks(n_blocks, activation):
    X = pd_stress_set(20, 5, seed=n_blocks)
    theta, sigma = resnet_ntk(X, n_blocks=n_blocks, activation=activation)
    assert np.allclose(theta, theta.T) and np.allclose(sigma, sigma.T)
    floor = 1e-6 if activation == "relu" else -1e-9  # strict PD is the ReLU theorem; erf: PSD
    assert np.linalg.eigvalsh(theta)[0] > floor * np.trace(theta) / 20
    assert np.linalg.eigvalsh(sigma)[0] > -1e-9 * np.trace(sigma)
    cross, _ = resnet_ntk(X[:5], X[5:], n_blocks=n_blocks, activation=activation)
    assert cross == pytest.approx(theta[:5, 5:])
    theta_nb, _ = resnet_ntk(X, n_blocks=n_blocks, activation=activation, bias=0.0)
    if activation == "relu":  # positively homogeneous without biases: singular on the pair (x, 2x)
        assert abs(np.linalg.eigvalsh(theta_nb)[0]) < 1e-9 * np.trace(theta_nb)


def test_bad_inputs():
    X = np.ones((3, 2))
    with pytest.raises(ValueError, match=r"activation.*relu.*erf"):
        resnet_ntk(X, activation="gelu")
    with pytest.raises(ValueError, match="n_blocks"):
        resnet_ntk(X, n_blocks=0)
    with pytest.raises(ValueError, match="alpha"):
        resnet_ntk(X, alpha=-1.0)
    with pytest.raises(ValueError, match=r"activation.*relu.*erf"):
        fc_ntk(X, activation="tanh")
    with pytest.raises(ValueError, match="depth"):
        fc_ntk(X, depth=0)
    with pytest.raises(ValueError, match="bias"):
        fc_ntk(X, bias=-1.0)
    with pytest.raises(ValueError, match="X2"):
        fc_ntk(X, np.ones((3, 5)))
