"""Baselines: NNR against brute force, Wachter against the closed-form boundary projection of a logistic
model, Growing Spheres and ROAR against their own definitions."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from genre import NNR, ROAR, GrowingSpheres, Wachter


def logistic(w, b, device="cpu"):
    m = torch.nn.Sequential(torch.nn.Linear(len(w), 1), torch.nn.Sigmoid()).to(device)
    with torch.no_grad():
        m[0].weight.copy_(torch.as_tensor(np.asarray(w)[None], dtype=torch.float32))
        m[0].bias.fill_(b)
    for p in m.parameters():
        p.requires_grad_(False)
    return m


def test_nnr_is_the_nearest_positive_by_brute_force(rng):
    X, y = rng.random((60, 3)), rng.integers(0, 2, 60)
    Q = rng.random((10, 3))
    cf = NNR().fit(X, y).recourse(Q)
    for q, c in zip(Q, cf, strict=True):
        best = min((x for x, t in zip(X, y, strict=True) if t == 1), key=lambda x: np.abs(x - q).sum())
        np.testing.assert_array_equal(c, best)


def test_nnr_require_valid_uses_only_accepted_points(rng):
    X, y = rng.random((80, 2)), np.ones(80, int)
    h = lambda Z: (np.asarray(Z)[:, 0] > 0.5).astype(float)  # noqa: E731
    cf = NNR(h, require_valid=True).fit(X, y).recourse(rng.random((10, 2)))
    assert np.all(cf[:, 0] > 0.5)
    with pytest.raises(ValueError, match="no positives to pair with"):
        NNR().fit(X, np.zeros(80, int))


def test_wachter_sgd_l2_reaches_the_boundary_along_the_weight_direction(device):
    w, b = np.array([1.5, -2.0]), 0.4
    m = logistic(w, b, device)
    X = np.array([[0.2, 0.6], [0.3, 0.7], [0.5, 0.8]])  # all with w·x + b < 0
    assert np.all(X @ w + b < 0)
    cf = Wachter(
        m, lam=1e-6, lam_step=0.0, lr=0.01, n_iter=5000, norm=2, optimizer="sgd", device=device
    ).recourse(X)
    proj = X - ((X @ w + b) / (w @ w))[:, None] * w  # closed form: the nearest point of the boundary (L2)
    step = X - cf
    cos = np.abs(step @ w) / (np.linalg.norm(step, axis=1) * np.linalg.norm(w))
    np.testing.assert_allclose(cos, 1.0, atol=1e-4)
    np.testing.assert_allclose(cf, proj, atol=0.01)
    assert np.all(cf @ w + b > 0)  # just across


def test_wachter_adam_makes_every_point_valid_and_stops_near_the_boundary(device):
    w, b = np.array([1.0, 1.0]), -1.0
    m = logistic(w, b, device)
    X = np.random.default_rng(0).random((40, 2)) * 0.5
    cf = Wachter(m, device=device).recourse(X)
    z = cf @ w + b
    assert np.all(z > 0) and np.all(z < 0.05)
    assert np.all((cf >= 0) & (cf <= 1))


def test_wachter_needs_a_differentiable_classifier():
    with pytest.raises(TypeError, match="differentiable torch classifier"):
        Wachter(lambda X: X[:, 0])


def test_growing_spheres_finds_valid_sparse_counterfactuals():
    h = lambda Z: (np.asarray(Z)[:, 0] > 0.6).astype(float)  # noqa: E731  only x1 matters
    X = np.random.default_rng(1).random((8, 3)) * 0.5
    cf = GrowingSpheres(h, n_samples=500, step=0.1, seed=0).recourse(X)
    assert np.all(cf[:, 0] > 0.6)
    np.testing.assert_array_equal(cf[:, 1:], X[:, 1:])  # sparsification resets the irrelevant features
    assert np.all(cf[:, 0] < 0.6 + 0.25)  # found in an early shell


def test_roar_is_valid_under_its_worst_case_shift(device):
    w, b = np.array([2.0, 1.0]), -1.5
    m = logistic(w, b, device)
    X = np.random.default_rng(2).random((20, 2)) * 0.4
    r = ROAR(m, delta=0.1, device=device)
    cf = r.recourse(X)
    worst = cf @ w + b - 0.1 * (np.abs(cf).sum(1) + 1)  # the linearisation of a logistic model is exact
    assert np.all(worst > 0)
    wachter = Wachter(m, device=device).recourse(X)
    assert np.abs(cf - X).sum(1).mean() > np.abs(wachter - X).sum(1).mean()  # robustness costs
    np.testing.assert_allclose(r.w_.cpu().numpy(), np.tile(w, (20, 1)), rtol=1e-4)
