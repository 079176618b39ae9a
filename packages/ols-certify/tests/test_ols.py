"""OLS, the exact removal formula, the whitening and the decomposition of the removal effect."""

from __future__ import annotations

import numpy as np
import pytest
from _helpers import random_regression, refit_coef
from ols_certify import fit_ols, removal_effect, whiten


def test_fit_matches_lstsq_and_closed_form_standard_errors(rng):
    X, y = random_regression(rng, 50, 4)
    fit = fit_ols(X, y)
    beta = np.linalg.lstsq(X, y, rcond=None)[0]
    np.testing.assert_allclose(fit.beta, beta, rtol=1e-10, atol=1e-12)
    r = y - X @ beta
    se = np.sqrt(r @ r / (50 - 4) * np.diag(np.linalg.inv(X.T @ X)))
    np.testing.assert_allclose(fit.se, se, rtol=1e-10)
    np.testing.assert_allclose(X.T @ fit.resid, 0, atol=1e-10)


def test_add_intercept_names_and_prepends_ones(rng):
    Z = rng.normal(size=(30, 2))
    fit = fit_ols(Z, Z[:, 0] + 1.0, add_intercept=True, names=["a", "b"])
    assert fit.names == ("const", "a", "b")
    np.testing.assert_allclose(fit.beta, [1.0, 1.0, 0.0], atol=1e-10)


@pytest.mark.parametrize("T", [[0], [3, 7], [1, 2, 5, 11, 17]])
def test_exact_removal_formula_equals_explicit_refit(rng, T):
    X, y = random_regression(rng, 25, 3)
    beta = np.linalg.lstsq(X, y, rcond=None)[0][1]
    assert removal_effect(X, y, 1, T) == pytest.approx(refit_coef(X, y, 1, T) - beta, rel=1e-9, abs=1e-12)


def test_removal_that_makes_the_design_singular_is_nan():
    X = np.column_stack([np.ones(6), [1.0, 0, 0, 0, 0, 0]])  # column 1 is nonzero on row 0 only
    y = np.arange(6.0)
    assert np.isnan(removal_effect(X, y, 0, [0]))


def test_whitening_is_orthonormal_and_z_r_is_the_amip_influence(rng):
    X, y = random_regression(rng, 40, 3)
    fit = fit_ols(X, y)
    w = whiten(X, fit.resid, 1, fit.beta[1])
    np.testing.assert_allclose(w.Xt.T @ w.Xt, np.eye(3), atol=1e-12)
    Sinv = np.linalg.inv(X.T @ X)
    infl = (X @ Sinv[:, 1]) * fit.resid * np.sign(fit.beta[1])  # first-order effect eᵀΣ⁻¹x_i r_i
    np.testing.assert_allclose(w.Z * w.R, infl, rtol=1e-9, atol=1e-14)
    np.testing.assert_allclose(w.et @ w.et, Sinv[1, 1], rtol=1e-10)
    H = X @ Sinv @ X.T
    np.testing.assert_allclose(w.Xt @ w.Xt.T, H, atol=1e-12)


def test_decomposition_identity_equals_exact_effect(rng):
    X, y = random_regression(rng, 30, 4, heavy=True)
    fit = fit_ols(X, y)
    w = whiten(X, fit.resid, 2, fit.beta[2])
    for T in ([4], [0, 9], [2, 3, 8, 21]):
        Q = w.Xt[T]
        S = Q.T @ Q
        v = Q.T @ w.R[T]
        Se = S @ w.et
        lin = float(np.sum(w.Z[T] * w.R[T]))
        third = float(Se @ S @ np.linalg.solve(np.eye(4) - S, v))
        exact = w.sign * (fit.beta[2] - refit_coef(X, y, 2, T))
        assert lin + Se @ v + third == pytest.approx(exact, abs=1e-10)
        lam = np.linalg.eigvalsh(S)[-1]
        assert abs(third) <= np.linalg.norm(Se) * lam / (1 - lam) * np.linalg.norm(v) + 1e-12


@pytest.mark.parametrize(
    ("X", "y", "err", "match"),
    [
        (
            np.ones((5, 2)),
            np.ones(5),
            ValueError,
            r"rank-deficient.*'x1' \(index 1\) is a linear combination of 'x0'",
        ),
        (np.zeros((3, 3)), np.ones(3), ValueError, "n = 3 <= d = 3"),
        (np.ones((4, 2)), np.ones(3), ValueError, "4 rows but y has 3"),
        (np.ones(4), np.ones(4), ValueError, "must be 2-D"),
        ([["a", "b"]], [1.0], TypeError, "numeric"),
    ],
)
def test_bad_designs_are_refused(X, y, err, match):
    with pytest.raises(err, match=match):
        fit_ols(X, y)


def test_nan_and_inf_are_refused_naming_the_rows(rng):
    X, y = random_regression(rng, 10, 2)
    X[3, 1] = np.nan
    with pytest.raises(ValueError, match=r"X contains NaN or inf in 1 row\(s\): 3"):
        fit_ols(X, y)
    X[3, 1] = 0.0
    y[[2, 5]] = np.inf
    with pytest.raises(ValueError, match=r"y contains NaN or inf in 2 row\(s\): 2, 5"):
        fit_ols(X, y)


def test_collinear_columns_are_named(rng):
    Z = rng.normal(size=(20, 3))
    X = np.column_stack([Z, Z[:, 0] - 2 * Z[:, 2]])
    with pytest.raises(ValueError, match=r"'d' \(index 3\) is a linear combination of 'a', 'c'"):
        fit_ols(X, Z[:, 1], names=["a", "b", "c", "d"])
    with pytest.raises(ValueError, match=r"'zero' \(index 1\) are all zeros"):
        fit_ols(np.column_stack([Z[:, 0], np.zeros(20)]), Z[:, 1], names=["a", "zero"])
