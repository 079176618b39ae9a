"""ACRE's certificate: soundness against brute force, monotonicity, invariances, singular designs and
thresholds."""

from __future__ import annotations

import numpy as np
import pytest
from _helpers import random_regression
from ols_certify import acre_bounds, brute_force, certify, first_crossing, resolve_threshold
from ols_certify.data import fixed_effects, tiny_instance


@pytest.mark.parametrize("seed", range(12))
def test_bound_dominates_brute_force_on_tiny_instances(seed):
    X, y, coef, _ = tiny_instance(100 + seed)
    cert = certify(X, y, coef, "sign", k_max=4)
    bf = brute_force(X, y, coef, 4)
    assert np.all(cert.bounds.total >= bf.at_most - 1e-9)
    if bf.k_true is not None:
        assert cert.k_lb <= bf.k_true


def test_bound_dominates_brute_force_for_every_k_and_threshold_rule(rng):
    X, y = random_regression(rng, 13, 3, heavy=True)
    bf = brute_force(X, y, 2, 6)
    for rule in ("sign", ("se", 1.0), ("significance", 1.0), 0.05):
        cert = certify(X, y, 2, rule, k_max=6)
        assert np.all(cert.bounds.total >= bf.at_most - 1e-9)
        k_true, _ = first_crossing(bf.at_most, cert.tau)
        assert cert.k_lb <= k_true


def test_total_is_a_running_maximum_and_k_lb_the_first_crossing(rng):
    X, y = random_regression(rng, 200, 5, heavy=True)
    cert = certify(X, y, 1, ("se", 2.0), k_max=40)
    b = cert.bounds
    assert np.all(b.total[1:] >= b.total[:-1])
    np.testing.assert_array_equal(b.total, np.maximum.accumulate(b.raw))
    assert b.total[cert.k_lb - 1] >= cert.tau
    assert cert.k_lb == 1 or b.total[cert.k_lb - 2] < cert.tau
    assert not np.isnan(b.total).any()


def test_pieces_are_consistent(rng):
    X, y = random_regression(rng, 80, 4)
    b = acre_bounds(X, y, 1, 20)
    with np.errstate(divide="ignore"):
        third = np.where(b.cs < 1, b.cs * b.xr * b.xz / (1 - b.cs), np.inf)
    np.testing.assert_allclose(b.raw, b.linear + b.xzr + third)
    assert np.all(b.cs >= 0) and np.all(b.xr >= 0) and np.all(b.xz >= 0)
    np.testing.assert_array_equal(b.k, np.arange(1, 21))


def test_spectral_option_only_tightens(rng):
    X, y = random_regression(rng, 60, 3, heavy=True)
    tri = acre_bounds(X, y, 1, 20)
    both = acre_bounds(X, y, 1, 20, spectral=True)
    assert np.all(both.total <= tri.total + 1e-12)
    bf = brute_force(X[:14], y[:14], 1, 3)
    assert np.all(acre_bounds(X[:14], y[:14], 1, 3, spectral=True).total >= bf.at_most - 1e-9)


def _k_lb(X, y, coef, rule=("se", 2.0)):
    return certify(X, y, coef, rule, k_max=60).k_lb


def test_invariances(rng):
    X, y = random_regression(rng, 300, 4, heavy=True)
    base = _k_lb(X, y, 1)
    assert 1 < base <= 60
    assert _k_lb(X, 3.7 * y, 1) == base  # positive rescaling of y
    assert _k_lb(X, -y, 1) == base  # sign flip of β_e is handled
    Xs = X.copy()
    Xs[:, 1] *= 0.01  # the column of interest
    Xs[:, 2] *= 50.0
    assert _k_lb(Xs, y, 1) == base
    A = np.eye(4)
    A[[0, 2, 3], 2] = [0.5, 1.0, -2.0]  # column 2 ← 0.5·col0 + col2 − 2·col3 (other columns only)
    A[0, 3] = 1.0
    assert _k_lb(X @ A, y, 1) == base
    perm = rng.permutation(300)
    assert _k_lb(X[perm], y[perm], 1) == base
    sign = certify(X, y, 1, "sign", k_max=60)
    flipped = certify(X, -y, 1, "sign", k_max=60)
    assert flipped.k_lb == sign.k_lb and flipped.beta_e == pytest.approx(-sign.beta_e)
    np.testing.assert_allclose(flipped.bounds.total, sign.bounds.total, rtol=1e-9)


def test_fixed_effects_design_is_singular_at_the_smallest_group():
    X, y, coef, _ = fixed_effects(0, n_groups=8, min_size=4, max_size=12)
    cert = certify(X, y, coef, "sign", k_max=20)
    assert np.all(np.isinf(cert.bounds.total[3:]))  # k ≥ 4 = smallest group size
    assert cert.bounds.k_singular is not None and cert.bounds.k_singular <= 4
    assert cert.k_lb <= 4


def test_cs_bound_covers_the_largest_eigenvalue_of_the_worst_set(rng):
    X, y = random_regression(rng, 12, 3)
    b = acre_bounds(X, y, 1, 4)
    Q = np.linalg.qr(X)[0]
    import itertools

    for k in range(1, 5):
        lam = max(
            np.linalg.eigvalsh(Q[list(T)].T @ Q[list(T)])[-1] for T in itertools.combinations(range(12), k)
        )
        assert b.cs[k - 1] >= lam - 1e-12


def test_threshold_rules():
    assert resolve_threshold("sign", -2.0, 0.5)[0] == 2.0
    assert resolve_threshold(("se", 2), 3.0, 0.5)[0] == 1.0
    assert resolve_threshold(("significance", 2), -3.0, 0.5)[0] == 2.0
    assert resolve_threshold(0.25, 3.0, 0.5)[0] == 0.25
    for bad, err, match in [
        ("flip", ValueError, "threshold must be"),
        (("se", -1), ValueError, "finite and > 0"),
        (("sd", 1), ValueError, "tuple threshold"),
        (float("nan"), ValueError, "finite"),
        ([1], TypeError, "threshold must be"),
    ]:
        with pytest.raises(err, match=match):
            resolve_threshold(bad, 1.0, 1.0)


def test_conclusion_already_lost_gives_zero_and_exhaustion_is_flagged(rng):
    X, y = random_regression(rng, 40, 3)
    assert certify(X, y, 1, -1.0, k_max=5).k_lb == 0
    X[:, 1] = rng.normal(size=40)
    y = X[:, 1] * 0 + X[:, 2] * 0 + rng.normal(size=40) * 1e-3 + 100 * X[:, 1]
    cert = certify(X, y, 1, "sign", k_max=3)
    assert cert.exhausted and cert.k_lb == 4


@pytest.mark.parametrize(
    ("kwargs", "err", "match"),
    [
        ({"coef": 5}, ValueError, "out of range"),
        ({"coef": "z"}, ValueError, "not a column name"),
        ({"coef": 1.5}, TypeError, "int column index"),
        ({"coef": 1, "k_max": 40}, ValueError, "k_max must be < n = 40"),
        ({"coef": 1, "k_max": 0}, ValueError, "k_max must be an integer >= 1"),
        ({"coef": 1, "k_max": 2.0}, TypeError, "k_max must be an integer"),
    ],
)
def test_bad_arguments(rng, kwargs, err, match):
    X, y = random_regression(rng, 40, 3)
    with pytest.raises(err, match=match):
        certify(X, y, **kwargs)
