"""Exactness checks: dense vs KD-tree vs brute force, ties, the diagonal, the theorem's constructions."""

from __future__ import annotations

import numpy as np
import pytest
from lpca_metric_embed import (
    block_cliques,
    dense_mismatch,
    from_edge_index,
    kdtree_mismatch,
    l2_to_lpca,
    lpca_to_l2,
    planted_rgg,
    svd_sign_mismatch,
)
from lpca_metric_embed.baselines import svd_sign_eed


def brute(X, Y, beta, A, tau=0.0):
    """Reference: Python loops over pairs, distances with np.linalg.norm."""
    n = len(X)
    missed, spurious = [], []
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            s = float(X[i] @ Y[j]) if beta is None else beta - float(np.linalg.norm(X[i] - Y[j]))
            pred = s >= tau
            if A[i, j] and not pred:
                missed.append((i, j))
            if pred and not A[i, j]:
                spurious.append((i, j))
    return missed, spurious


def random_case(rng, n=40, D=2, grid=False):
    if grid:
        X = rng.integers(0, 4, (n, D)).astype(float)
        Y = rng.integers(0, 4, (n, D)).astype(float)
        beta = 2.0
    else:
        X, Y = rng.normal(size=(n, D)), rng.normal(size=(n, D))
        beta = 1.0
    A = rng.random((n, n)) < 0.2
    np.fill_diagonal(A, False)
    i, j = np.nonzero(A)
    return X, Y, beta, A, from_edge_index(n, np.stack([i, j]), directed=True)


@pytest.mark.parametrize("grid", [False, True])
@pytest.mark.parametrize("tau", [0.0, np.log(0.5)])
def test_dense_and_kdtree_agree_with_brute_force(rng, grid, tau):
    X, Y, beta, A, g = random_case(rng, grid=grid)
    missed, spurious = brute(X, Y, beta, A, tau)
    for m in (dense_mismatch(X, Y, beta, g, tau), kdtree_mismatch(X, Y, beta, g, tau)):
        assert [tuple(p) for p in m.missed.tolist()] == missed
        assert [tuple(p) for p in m.spurious.tolist()] == spurious


def test_lpca_dense_check_against_brute_force(rng):
    X, Y, _, A, g = random_case(rng, D=3)
    missed, spurious = brute(X, Y, None, A)
    m = dense_mismatch(X, Y, None, g)
    assert [tuple(p) for p in m.missed.tolist()] == missed and [
        tuple(p) for p in m.spurious.tolist()
    ] == spurious


def test_threshold_is_inclusive_at_exact_ties():
    X = np.array([[0.0, 0.0], [3.0, 4.0]])
    Y = X.copy()
    g = from_edge_index(2, np.array([[0, 1], [1, 0]]), directed=True)
    for check in (dense_mismatch, kdtree_mismatch):
        assert check(X, Y, 5.0, g).n_wrong == 0  # distance exactly 5 = β: a link
        assert check(X, Y, np.nextafter(5.0, 0), g).n_wrong == 2  # just below: both links missed


def test_negative_radius_predicts_no_links():
    X = np.zeros((3, 1))
    g = from_edge_index(3, np.array([[0], [1]]), directed=True)
    for check in (dense_mismatch, kdtree_mismatch):
        m = check(X, X, -0.5, g)
        assert m.missed.tolist() == [[0, 1]] and m.spurious.size == 0


def test_planted_rgg_is_exact_and_both_checks_see_a_perturbation():
    g, pos = planted_rgg(500, 3, seed=1, degree=6)
    from lpca_metric_embed import rgg_radius

    r = rgg_radius(500, 3, 6)
    assert dense_mismatch(pos, pos, r, g).exact and kdtree_mismatch(pos, pos, r, g).exact
    moved = pos.copy()
    moved[0] += 0.3
    d, k = dense_mismatch(moved, pos, r, g), kdtree_mismatch(moved, pos, r, g)
    assert d.n_wrong > 0 and np.array_equal(d.missed, k.missed) and np.array_equal(d.spurious, k.spurious)


def test_diagonal_never_counts():
    X = np.array([[0.0], [10.0]])
    g = from_edge_index(2, np.zeros((2, 0), dtype=int))
    # each node is at distance 0 from itself (inside any ball) but self pairs are excluded
    assert dense_mismatch(X, X, 1.0, g).exact and kdtree_mismatch(X, X, 1.0, g).exact


def test_dense_refuses_large_graphs_with_the_sparse_path_named():
    g = from_edge_index(20, np.array([[0], [1]]))
    with pytest.raises(ValueError, match="kdtree_mismatch"):
        dense_mismatch(np.zeros((20, 1)), np.zeros((20, 1)), 1.0, g, max_nodes=10)


def test_kdtree_refuses_lpca_and_bad_shapes():
    g = from_edge_index(3, np.array([[0], [1]]))
    with pytest.raises(ValueError, match="L2 model"):
        kdtree_mismatch(np.zeros((3, 1)), np.zeros((3, 1)), None, g)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"\(N=3, D\)"):
        kdtree_mismatch(np.zeros((2, 1)), np.zeros((2, 1)), 1.0, g)


def test_lpca_to_l2_preserves_the_reconstruction(rng):
    X, Y = rng.normal(size=(30, 3)), rng.normal(size=(30, 3))
    S = X @ Y.T >= 0
    np.fill_diagonal(S, False)
    i, j = np.nonzero(S)
    g = from_edge_index(30, np.stack([i, j]), directed=True)
    assert dense_mismatch(X, Y, None, g).exact
    Xh, Yh, beta = lpca_to_l2(X, Y)
    assert Xh.shape == X.shape and beta == pytest.approx(np.sqrt(2))
    assert dense_mismatch(Xh, Yh, beta, g).exact
    with pytest.raises(ValueError, match="non-zero rows"):
        lpca_to_l2(np.zeros((2, 2)), Y[:2])


@pytest.mark.parametrize("beta", [0.8, -0.3])
def test_l2_to_lpca_preserves_the_reconstruction_in_d_plus_2(rng, beta):
    X, Y = rng.normal(size=(30, 2)), rng.normal(size=(30, 2))
    D2 = np.linalg.norm(X[:, None] - Y[None], axis=-1)
    S = beta >= D2
    np.fill_diagonal(S, False)
    i, j = np.nonzero(S)
    g = from_edge_index(30, np.stack([i, j]), directed=True)
    Xp, Yp = l2_to_lpca(X, Y, beta)
    assert Xp.shape == (30, 4)
    assert dense_mismatch(X, Y, beta, g).exact and dense_mismatch(Xp, Yp, None, g).exact
    if beta > 0:
        np.testing.assert_allclose(Xp @ Yp.T, beta**2 - D2**2, atol=1e-12)


def test_cliques_have_a_closed_form_l2_embedding_at_d1():
    g = block_cliques(30, 5)
    x = (np.arange(30) * 5 // 30).astype(float)[:, None] * 3.0  # clique k at 3k
    assert dense_mismatch(x, x, 1.0, g).exact


def test_svd_sign_baseline_counts_mismatches_of_the_rank_d_sign_pattern():
    g = block_cliques(12, 3)
    # Ã = 2A − 1 of 3 disjoint cliques has rank 3 (plus the diagonal fix): rank 3 recovers the signs exactly
    assert svd_sign_mismatch(g, 11) == 0
    assert svd_sign_mismatch(g, 1) > 0
    with pytest.raises(ValueError, match=r"dimension D\) must be an integer >= 1"):
        svd_sign_mismatch(g, 0)
    # the search over D (one SVD) returns the first D whose sign pattern is exact
    first = next(D for D in range(1, 13) if svd_sign_mismatch(g, D) == 0)
    assert svd_sign_eed(g, 12) == first and svd_sign_eed(g, first - 1) is None
