"""Synthesised supervision: pair weights against a brute-force double loop, top-K, limits of λ, sampling."""

from __future__ import annotations

import numpy as np
import pytest
from genre.pairs import PairSampler, pair_distribution, pair_weights_dense


def brute_weights(X_neg, X_pos, lam, imm=None):
    w = np.zeros((len(X_neg), len(X_pos)))
    for i, a in enumerate(X_neg):
        for j, b in enumerate(X_pos):
            same = True if imm is None else all(a[t] == b[t] for t in range(len(a)) if imm[t])
            w[i, j] = np.exp(-lam * sum(abs(a[t] - b[t]) for t in range(len(a)))) * same
    return w


def test_dense_weights_equal_brute_force(rng):
    X_neg, X_pos = rng.random((7, 3)), rng.random((11, 3))
    np.testing.assert_allclose(
        pair_weights_dense(X_neg, X_pos, 2.5), brute_weights(X_neg, X_pos, 2.5), rtol=1e-12
    )


def test_topk_distribution_equals_normalised_brute_force_topk(rng):
    X_neg, X_pos = rng.random((9, 4)), rng.random((30, 4))
    k = 6
    dist = pair_distribution(X_neg, X_pos, lam=3.0, k=k, chunk=4)  # chunking must not matter
    w = brute_weights(X_neg, X_pos, 3.0)
    for i in range(len(X_neg)):
        top = np.argsort(-w[i])[:k]
        assert set(dist.idx[i]) == set(top)
        expected = w[i, dist.idx[i]] / w[i, top].sum()
        np.testing.assert_allclose(dist.prob[i], expected, rtol=1e-10)
    np.testing.assert_allclose(dist.prob.sum(1), 1.0, rtol=1e-12)
    assert np.all(np.diff(dist.prob, axis=1) <= 1e-15)  # nearest first


def test_immutable_mismatch_gets_zero_weight_and_unpairable_sources_are_dropped(rng):
    X_pos = np.column_stack([rng.random(20), rng.integers(0, 2, 20)]).astype(float)
    X_pos[:, 1] = np.where(np.arange(20) < 10, 0.0, 1.0)
    X_neg = np.array([[0.5, 0.0], [0.2, 1.0], [0.3, 2.0]])  # the last shares its immutable with nobody
    imm = np.array([False, True])
    w = pair_weights_dense(X_neg, X_pos, 1.0, imm_mask=imm)
    np.testing.assert_allclose(w, brute_weights(X_neg, X_pos, 1.0, imm), rtol=1e-12)
    with pytest.warns(RuntimeWarning, match="share their immutable features with no positive"):
        dist = pair_distribution(X_neg, X_pos, 1.0, k=15, imm_mask=imm)
    assert dist.keep.tolist() == [True, True, False]
    for i in (0, 1):
        partners = X_pos[dist.idx[i][dist.prob[i] > 0]]
        assert np.all(partners[:, 1] == X_neg[i, 1])
        assert dist.prob[i].sum() == pytest.approx(1.0)
    with pytest.warns(RuntimeWarning):
        sampler = PairSampler(X_neg, np.zeros(3), X_pos, 1.0, k=15, imm_mask=imm)
    assert len(sampler) == 2
    for _ in range(20):
        _, xp = sampler.sample(np.random.default_rng(_))
        assert np.all(xp[:, 1] == X_neg[:2, 1])


def test_large_lambda_gives_the_nearest_neighbour_and_zero_lambda_is_uniform(rng):
    X_neg, X_pos = rng.random((5, 2)), rng.random((40, 2))
    nearest = np.abs(X_neg[:, None] - X_pos[None]).sum(-1).argmin(1)
    d = pair_distribution(X_neg, X_pos, lam=1e4, k=10)
    np.testing.assert_array_equal(d.idx[:, 0], nearest)
    np.testing.assert_allclose(d.prob[:, 0], 1.0, atol=1e-12)
    u = pair_distribution(X_neg, X_pos, lam=0.0, k=10)
    np.testing.assert_allclose(u.prob, 0.1, rtol=1e-12)


def test_k_larger_than_positives_uses_all_of_them(rng):
    d = pair_distribution(rng.random((3, 2)), rng.random((4, 2)), lam=1.0, k=1000)
    assert d.idx.shape == (3, 4)
    assert all(sorted(r) == [0, 1, 2, 3] for r in d.idx.tolist())


def test_sampler_frequencies_match_the_distribution(rng):
    X_neg, X_pos = rng.random((3, 2)), rng.random((8, 2))
    s = PairSampler(X_neg, np.zeros(3), X_pos, lam=4.0, k=5)
    g = np.random.default_rng(1)
    counts = np.zeros((3, 8))
    n = 20000
    for _ in range(n):
        counts[np.arange(3), s.sample_index(g)] += 1
    expected = np.zeros((3, 8))
    for i in range(3):
        expected[i, s.idx[i]] = s.prob[i]
    # 4 standard errors of a binomial proportion
    assert np.all(np.abs(counts / n - expected) <= 4 * np.sqrt(expected * (1 - expected) / n) + 1e-12)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"X_pos": np.zeros((0, 2))}, "no positives to pair with"),
        ({"X_pos": np.zeros((3, 3))}, "features"),
        ({"lam": -1.0}, "lam must be"),
        ({"imm_mask": np.array([True])}, "one entry per feature"),
        ({"k": 0}, "k must be"),
        ({"X_neg": np.array([[np.nan, 0.0]])}, "finite"),
    ],
)
def test_bad_input(kwargs, match):
    args = {"X_neg": np.zeros((2, 2)), "X_pos": np.ones((3, 2)), "lam": 1.0}
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        pair_distribution(**args)
