"""Matérn kernels and GP sampling against closed forms, scikit-learn and sampling statistics."""

from __future__ import annotations

import math

import numpy as np
import pytest
from compositional_dnn.data import make_composition
from compositional_dnn.kernels import matern, matern_bessel, matern_kernel, rms_distance, sample_gp

R = np.linspace(0.0, 4.0, 81)


@pytest.mark.parametrize(
    ("nu", "closed"),
    [
        (0.5, lambda r: np.exp(-r)),
        (1.5, lambda r: (1 + math.sqrt(3) * r) * np.exp(-math.sqrt(3) * r)),
        (2.5, lambda r: (1 + math.sqrt(5) * r + 5 * r**2 / 3) * np.exp(-math.sqrt(5) * r)),
    ],
)
def test_bessel_form_equals_closed_forms(nu, closed):
    np.testing.assert_allclose(matern_bessel(R, nu), closed(R), atol=1e-12)
    np.testing.assert_allclose(matern(R, nu), closed(R), atol=1e-14)


def test_large_nu_tends_to_the_gaussian():
    gauss = np.exp(-(R**2) / 2)
    err = [np.abs(matern_bessel(R, nu) - gauss).max() for nu in (5.0, 20.0, 50.0)]
    assert err[0] > err[1] > err[2] and err[2] < 5e-3  # O(1/nu) convergence
    np.testing.assert_array_equal(matern(R, math.inf), gauss)


def test_zero_distance_is_one_and_tiny_r_is_finite():
    r = np.array([0.0, 1e-300, 1e-12])
    for nu in (0.7, 3.3, 12.0):
        k = matern_bessel(r, nu)
        assert k[0] == 1.0 and np.all(np.isfinite(k)) and k[2] == pytest.approx(1.0, abs=1e-9)


def test_rms_distance_against_brute_force():
    rng = np.random.default_rng(0)
    X, X2 = rng.standard_normal((30, 15)), rng.standard_normal((7, 15))
    brute = np.sqrt(((X[:, None, :] - X2[None]) ** 2).mean(-1))
    np.testing.assert_allclose(rms_distance(X, X2), brute, atol=1e-12)
    np.testing.assert_allclose(rms_distance(X), np.sqrt(((X[:, None, :] - X[None]) ** 2).mean(-1)), atol=1e-7)


@pytest.mark.slow  # importing sklearn.gaussian_process costs ~3 CPU-s, a tenth of the default budget
def test_matern_kernel_against_sklearn():
    sk = pytest.importorskip("sklearn.gaussian_process.kernels")
    rng = np.random.default_rng(0)
    X, X2 = rng.standard_normal((30, 15)), rng.standard_normal((7, 15))
    np.testing.assert_allclose(
        matern_kernel(X, 0.8), sk.Matern(length_scale=math.sqrt(15), nu=0.8)(X), atol=1e-10
    )
    for nu in (0.5, 1.5, 2.5, math.inf, 0.8):  # sklearn's Euclidean length scale sqrt(d) = our RMS scale 1
        ref = sk.Matern(length_scale=math.sqrt(15), nu=nu)(X, X2)
        np.testing.assert_allclose(matern_kernel(X, nu, X2), ref, atol=1e-10)


@pytest.mark.parametrize("nu", [0.5, 1.5, math.inf])
def test_kernel_matrix_symmetric_psd(nu):
    X = np.random.default_rng(1).standard_normal((60, 3))
    K = matern_kernel(X, nu)
    assert np.array_equal(K, K.T) and np.all(np.diag(K) == 1.0)
    assert np.linalg.eigvalsh(K).min() >= -1e-8


def test_gp_samples_have_covariance_k():
    X = np.random.default_rng(2).standard_normal((5, 15))
    S, jitter = sample_gp(X, 1.5, 40_000, np.random.default_rng(3))
    assert jitter == 0.0
    np.testing.assert_allclose(S @ S.T / S.shape[1], matern_kernel(X, 1.5), atol=0.03)


@pytest.mark.parametrize(("nu", "slope"), [(0.5, 1.0), (2.5, 2.0)])
def test_mean_squared_increment_scales_like_delta_power(nu, slope):
    """E|g(x) - g(x + delta)|^2 ~ |delta|^{2 min(nu, 1)} for small delta (from samples, in 1-D)."""
    deltas = np.array([0.01, 0.02, 0.04])
    x = np.concatenate([[0.0], deltas])[:, None]
    S, _ = sample_gp(x, nu, 20_000, np.random.default_rng(4))
    msi = ((S[1:] - S[0]) ** 2).mean(axis=1)
    fit = np.polyfit(np.log(deltas), np.log(msi), 1)[0]
    assert fit == pytest.approx(slope, abs=0.15)


def test_smooth_kernel_on_near_duplicates_escalates_jitter():
    X = np.repeat(np.random.default_rng(5).standard_normal((10, 3)), 2, axis=0)  # exact duplicates
    S, jitter = sample_gp(X, math.inf, 2, np.random.default_rng(0))
    assert jitter > 0 and np.all(np.isfinite(S))


def test_composition_shapes_and_seed():
    a = make_composition(40, nu_g=math.inf, nu_h=0.5, seed=3)
    b = make_composition(40, nu_g=math.inf, nu_h=0.5, seed=3)
    assert a.X.shape == (40, 15) and a.Z.shape == (40, 3) and a.Y.shape == (40, 20)
    np.testing.assert_array_equal(a.Y, b.Y)
    Xtr, _, _ = a.train(30)
    Xte, _, _ = a.test(10)
    assert not np.intersect1d(Xtr[:, 0], Xte[:, 0]).size  # the test rows are disjoint from the pool prefix


@pytest.mark.parametrize("bad", [0.0, -1.0, math.nan, -math.inf])
def test_bad_regularity_is_refused(bad):
    with pytest.raises(ValueError, match="nu_g"):
        make_composition(40, nu_g=bad, nu_h=0.5, seed=0)
    with pytest.raises(ValueError, match="nu_h"):
        make_composition(40, nu_g=0.5, nu_h=bad, seed=0)
    with pytest.raises(TypeError, match="nu"):
        matern(R, "1.5")  # type: ignore[arg-type]


def test_fewer_points_than_input_dimensions_is_refused():
    with pytest.raises(ValueError, match="n_total"):
        make_composition(10, nu_g=0.5, nu_h=0.5, seed=0)  # 10 < d_in = 15
    comp = make_composition(40, nu_g=0.5, nu_h=0.5, seed=0)
    with pytest.raises(ValueError, match="n_train"):
        comp.train(8)
