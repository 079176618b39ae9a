"""Baselines: brute force against explicit refits, KZC21 against a naive greedy, AMIP's exact prefixes,
and the FH23 certificate's soundness and constant."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from _helpers import random_regression, refit_coef
from ols_certify import amip, brute_force, freund_hopkins, hypercontractivity_constant, kzc21, kzc21_naive


def test_brute_force_equals_explicit_enumeration(rng):
    X, y = random_regression(rng, 11, 3, heavy=True)
    b0 = np.linalg.lstsq(X, y, rcond=None)[0][1]
    s = np.sign(b0)
    bf = brute_force(X, y, 1, 3)
    for k in range(1, 4):
        effects = [s * (b0 - refit_coef(X, y, 1, T)) for T in itertools.combinations(range(11), k)]
        assert bf.max_effect[k - 1] == pytest.approx(max(effects), rel=1e-9)
        assert s * (b0 - refit_coef(X, y, 1, bf.argmax[k - 1])) == pytest.approx(
            bf.max_effect[k - 1], rel=1e-9
        )


def test_kzc21_reproduces_the_naive_refit_greedy(rng):
    for seed in range(3):
        X, y = random_regression(np.random.default_rng(seed), 30, 3, heavy=True)
        order, effects = kzc21_naive(X, y, 1, 8)
        kz = kzc21(X, y, 1, 8)
        np.testing.assert_array_equal(kz.order, order)
        np.testing.assert_allclose(kz.effects, effects, rtol=1e-8)


def test_amip_orders_by_influence_and_reports_exact_prefix_effects(rng):
    X, y = random_regression(rng, 40, 4, heavy=True)
    res = amip(X, y, 2, 10)
    b0 = np.linalg.lstsq(X, y, rcond=None)[0][2]
    infl = np.sign(b0) * (X @ np.linalg.inv(X.T @ X)[:, 2]) * (y - X @ np.linalg.lstsq(X, y, rcond=None)[0])
    np.testing.assert_array_equal(res.order, np.argsort(-infl, kind="stable")[:10])
    for k in (1, 4, 10):
        exact = np.sign(b0) * (b0 - refit_coef(X, y, 2, res.order[:k]))
        assert res.effects[k - 1] == pytest.approx(exact, rel=1e-8)


def test_candidates_bracket_the_truth_from_above(rng):
    X, y = random_regression(rng, 16, 2, heavy=True)
    bf = brute_force(X, y, 1, 4)
    for finder in (amip, kzc21):
        c = finder(X, y, 1, 4)
        assert np.all(c.effects <= bf.at_most + 1e-9)  # real sets cannot beat the maximum
        if c.k is not None:
            assert bf.k_true is not None and bf.k_true <= c.k
            assert c.removal_set is not None and c.removal_set.size == c.k


def test_singular_removal_counts_as_infinite():
    X = np.column_stack([np.ones(8), np.r_[1.0, np.zeros(7)], np.arange(8.0)])  # row 0 alone identifies col 1
    y = np.r_[5.0, np.arange(7.0)]
    kz = kzc21(X, y, 2, 3)
    assert kz.order[0] == 0 and np.isinf(kz.effects[0]) and kz.k == 1
    assert np.isinf(brute_force(X, y, 2, 1).max_effect[0])


@pytest.mark.parametrize("seed", range(4))
def test_freund_hopkins_is_sound_and_weaker_than_acre(seed):
    from ols_certify import certify

    X, y = random_regression(np.random.default_rng(seed), 18, 3, heavy=True)
    fh = freund_hopkins(X, y, 1, 4)
    bf = brute_force(X, y, 1, 4)
    assert np.all(fh.total >= bf.at_most - 1e-9)
    assert fh.k_lb <= certify(X, y, 1, "sign", k_max=4).k_lb or np.isinf(fh.total[0])


def test_hypercontractivity_constant_bounds_fourth_moments_and_paths_agree(rng):
    X = rng.standard_t(5, size=(300, 21))
    Q = np.linalg.qr(X)[0]
    dense = hypercontractivity_constant(Q[:, :20])  # d = 20: dense d² × d²
    V = rng.normal(size=(20, 500))
    V /= np.linalg.norm(V, axis=0)
    assert np.max(np.sum((Q[:, :20] @ V) ** 4, axis=0)) <= dense + 1e-12  # Σ⟨x̃_i, v⟩⁴ ≤ C2, ‖v‖ = 1
    lanczos = hypercontractivity_constant(Q)  # d = 21: implicit operator
    V = rng.normal(size=(21, 500))
    V /= np.linalg.norm(V, axis=0)
    assert np.max(np.sum((Q @ V) ** 4, axis=0)) <= lanczos + 1e-12
    # the two paths compute the same quantity: compare on the same d by padding-free recomputation
    import ols_certify.baselines as bl

    n, d = Q.shape
    ci = np.sqrt(1.5)
    cphi = np.sqrt(1 / (2 / 3 + d / 3)) - ci
    phi = np.eye(d).reshape(-1)
    M = np.einsum("bi,bj->bij", Q, Q).reshape(n, d * d)
    Mp = ci * M + cphi * np.outer(M @ phi, phi) / d
    assert lanczos == pytest.approx(np.linalg.eigvalsh(Mp.T @ Mp)[-1], rel=1e-8)
    assert pytest.approx(2 / 3) == bl.ALPHA_GAUSSIAN


def test_fh_includes_the_norm_of_e_tilde(rng):
    X, y = random_regression(rng, 200, 3)
    Xs = X.copy()
    Xs[:, 1] *= 10.0
    a, b = freund_hopkins(X, y, 1, 10), freund_hopkins(Xs, y, 1, 10)
    np.testing.assert_allclose(b.total, a.total / 10.0, rtol=1e-9)  # U_FH scales like β_1
    assert a.k_lb == b.k_lb
