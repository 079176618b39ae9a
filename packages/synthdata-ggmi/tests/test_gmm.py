"""Mixtures against scipy's densities, sklearn's MI estimator, and their own sampling."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import multivariate_normal
from synthdata_ggmi.gmm import GMMSpec, fit_gmm, mixture_label_mi, sample_gmm


def spec(rng, m=3, d=2):
    A = rng.random((m, d, d))
    return GMMSpec(
        rng.random((m, d)) * 10, A @ A.transpose(0, 2, 1) + 0.1 * np.eye(d), rng.dirichlet(np.ones(m))
    )


def test_log_pdf_matches_scipy_mixture():
    rng = np.random.default_rng(0)
    g = spec(rng)
    X = rng.random((50, 2)) * 10
    ref = np.log(
        sum(w * multivariate_normal(m, c).pdf(X) for m, c, w in zip(g.means, g.covs, g.weights, strict=True))
    )
    assert g.log_pdf(X) == pytest.approx(ref, rel=1e-10, abs=1e-10)


def test_sampling_moments_and_labels():
    rng = np.random.default_rng(1)
    g = spec(rng)
    X, lab = g.sample(60_000, np.random.default_rng(2))
    freq = np.bincount(lab, minlength=3) / len(lab)
    assert freq == pytest.approx(g.weights, abs=0.01)
    for k in range(3):
        assert X[lab == k].mean(0) == pytest.approx(g.means[k], abs=0.05)
        assert np.cov(X[lab == k], rowvar=False) == pytest.approx(g.covs[k], abs=0.08)


def test_fit_recovers_separated_mixture_and_refuses_too_few_rows():
    g = GMMSpec(np.array([[0.0, 0.0], [10.0, 10.0]]), np.stack([np.eye(2)] * 2), np.array([0.5, 0.5]))
    X, _ = sample_gmm(g, 2000, np.random.default_rng(0))
    fit = fit_gmm(X, 2, seed=0)
    order = np.argsort(fit.means[:, 0])
    assert fit.means[order] == pytest.approx(g.means, abs=0.1)
    assert fit.weights.sum() == pytest.approx(1.0)
    with pytest.raises(ValueError, match="n_components"):
        fit_gmm(X[:3], 5, seed=0)


def test_bad_mixtures_raise_naming_the_argument():
    good_c = np.stack([np.eye(2)] * 2)
    with pytest.raises(ValueError, match="covs"):
        GMMSpec(np.zeros((2, 2)), np.stack([np.eye(2), -np.eye(2)]), np.array([0.5, 0.5]))
    with pytest.raises(ValueError, match="covs"):
        GMMSpec(
            np.zeros((2, 2)), np.stack([np.eye(2), np.array([[1.0, 2.0], [0.0, 1.0]])]), np.array([0.5, 0.5])
        )
    with pytest.raises(ValueError, match="weights"):
        GMMSpec(np.zeros((2, 2)), good_c, np.array([0.7, 0.7]))
    with pytest.raises(ValueError, match="covs"):
        GMMSpec(np.zeros((2, 2)), np.stack([np.eye(3)] * 2), np.array([0.5, 0.5]))


def test_label_mi_limits_and_sklearn_peer():
    from sklearn.feature_selection import mutual_info_classif

    far = GMMSpec(np.array([[0.0], [50.0], [100.0]]), np.ones((3, 1, 1)), np.full(3, 1 / 3))
    mi, _ = mixture_label_mi(far, 5000, np.random.default_rng(0))
    assert mi == pytest.approx(np.log(3), abs=1e-6)  # separated: X reveals C, I = H(C)
    same = GMMSpec(np.zeros((2, 1)), np.ones((2, 1, 1)), np.full(2, 0.5))
    assert mixture_label_mi(same, 5000, np.random.default_rng(0))[0] == pytest.approx(0.0, abs=1e-12)
    mid = GMMSpec(np.array([[0.0], [1.5]]), np.ones((2, 1, 1)), np.full(2, 0.5))
    ours, se = mixture_label_mi(mid, 20_000, np.random.default_rng(1))
    X, c = sample_gmm(mid, 4000, np.random.default_rng(2))
    peer = mutual_info_classif(X, c, discrete_features=False, n_neighbors=3, random_state=0)[0]
    assert abs(ours - peer) < 0.03 and se < 0.005  # kNN estimator (Ross 2014) vs exact posteriors
