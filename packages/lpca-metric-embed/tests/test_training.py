"""Losses, models, the optimiser, full-batch and active-set training, and the logarithmic search."""

from __future__ import annotations

import itertools
import math

import networkx as nx
import numpy as np
import pytest
import torch
from lpca_metric_embed import (
    L2Embedding,
    LPCAEmbedding,
    block_cliques,
    dense_mismatch,
    find_eed,
    fit,
    fit_active_set,
    from_edge_index,
    hinge,
    log_search,
    logistic,
    pca_init,
    planted_rgg,
    poisson,
    threshold,
    to_graph,
)
from lpca_metric_embed.losses import dense_loss
from lpca_metric_embed.training import FitResult

pytestmark = pytest.mark.usefixtures("torch_one_thread")


def test_losses_match_their_closed_forms_and_skip_the_diagonal(device):
    L = torch.tensor(
        [[5.0, -1.0, 2.0], [0.5, 7.0, -3.0], [1.0, 1.0, -9.0]], dtype=torch.float64, device=device
    )
    A = torch.tensor([[1, 1, 0], [0, 1, 1], [1, 0, 1]], dtype=torch.bool, device=device)  # diagonal ignored
    off = [(0, 1, 1, -1.0), (0, 2, 0, 2.0), (1, 0, 0, 0.5), (1, 2, 1, -3.0), (2, 0, 1, 1.0), (2, 1, 0, 1.0)]
    log_ref = sum(math.log1p(math.exp(-(2 * a - 1) * x)) for _, _, a, x in off)
    hinge_ref = sum(max(0.0, 1.0 - (2 * a - 1) * x) for _, _, a, x in off)
    pois_ref = sum(math.exp(x) - a * x for _, _, a, x in off)
    assert float(logistic(L, A)) == pytest.approx(log_ref, rel=1e-12)
    assert float(hinge(L, A, margin=1.0)) == pytest.approx(hinge_ref, rel=1e-12)
    assert float(poisson(L, A)) == pytest.approx(pois_ref, rel=1e-12)
    for name, ref in [("logistic", log_ref), ("poisson", pois_ref)]:
        assert float(dense_loss(name, A)(L)) == pytest.approx(ref, rel=1e-12)
    assert float(dense_loss("hinge", A, margin=1.0)(L)) == pytest.approx(hinge_ref, rel=1e-12)
    assert threshold("poisson") == pytest.approx(math.log(0.5)) and threshold("hinge") == 0.0


def test_l2_logits_match_exact_distances_and_have_finite_gradients_at_coincident_points(device):
    X = torch.tensor([[0.0, 0.0], [3.0, 4.0]], dtype=torch.float64, device=device)
    m = L2Embedding(X, X.clone(), beta=1.0)
    L = m.logits()
    np.testing.assert_allclose(L.detach().cpu().numpy(), [[1.0, -4.0], [-4.0, 1.0]], atol=1e-5)
    np.testing.assert_allclose(
        m.pair_logits(torch.tensor([0]), torch.tensor([1])).detach().cpu(), [-4.0], atol=1e-9
    )
    L.sum().backward()
    assert torch.isfinite(m.X.grad).all() and torch.isfinite(m.Y.grad).all()
    p = LPCAEmbedding(X, X.clone())
    np.testing.assert_allclose(p.logits().detach().cpu().numpy(), [[0.0, 0.0], [0.0, 25.0]])


def test_logistic_loss_decreases_under_training(device):
    g = to_graph(nx.karate_club_graph())
    r = fit(g, 4, model="lpca", loss="logistic", lr=0.05, max_epochs=200, eval_every=20, device=device)
    loss = r.curve["loss"]
    assert all(b < a for a, b in itertools.pairwise(loss))


def test_hinge_degenerate_zero_is_not_called_exact(device):
    g = block_cliques(8, 2)
    z = np.zeros((8, 1))
    # all points equal and β = 0: Λ ≡ 0, the margin-0 hinge is 0, yet every non-link is predicted a link
    m = L2Embedding(torch.zeros(8, 1, dtype=torch.float64), torch.zeros(8, 1, dtype=torch.float64), 0.0)
    A = torch.as_tensor(g.dense())
    assert float(dense_loss("hinge", A)(m.logits().detach())) == pytest.approx(
        0.0, abs=1e-4
    )  # sqrt(eps) smoothing
    assert dense_mismatch(z, z, 0.0, g).n_wrong == 8 * 7 - g.n_links
    r = fit(g, 1, model="l2", loss="hinge", init=(z, z), max_epochs=0, device=device)
    assert not r.exact and r.n_wrong == 8 * 7 - g.n_links


def test_self_loops_change_neither_loss_nor_exactness(device):
    G = nx.karate_club_graph()
    H = G.copy()
    H.add_edges_from((v, v) for v in list(H)[:5])
    a = fit(G, 3, model="l2", max_epochs=60, eval_every=20, seed=1, device=device)
    b = fit(H, 3, model="l2", max_epochs=60, eval_every=20, seed=1, device=device)
    assert a.curve == b.curve and np.array_equal(a.X, b.X)


def test_cliques_l2_exact_at_d1_from_planted_init_and_from_training(device):
    g = block_cliques(60, 6)
    x = (np.arange(60) * 6 // 60).astype(float)[:, None] * 2.0
    planted = fit(g, 1, model="l2", init=(x, x), max_epochs=0, device=device, seed=3)
    assert planted.exact and planted.epochs == 0  # clique spacing 2 > β ~ U(0, 1)
    trained = fit(g, 1, model="l2", lr=1.0, max_epochs=1500, eval_every=50, seed=1, device=device)
    assert trained.exact and trained.n_wrong == 0


def test_lpca_on_cliques_is_never_exact_at_d2(device):
    g = block_cliques(24, 4)
    for seed in range(2):
        r = fit(
            g,
            2,
            model="lpca",
            loss="logistic",
            lr=1.0,
            max_epochs=600,
            eval_every=50,
            seed=seed,
            device=device,
        )
        assert not r.exact and min(r.curve["n_wrong"]) > 0


def test_log_search_on_a_monotone_oracle_finds_the_minimum_within_the_fit_budget():
    for true_d in [1, 2, 5, 13, 16, 17]:
        calls = []

        def oracle(D, init, true_d=true_d, calls=calls):
            calls.append(D)
            z = np.zeros((2, D))
            return FitResult(true_d <= D, D, "l2", "hinge", 0.0, z, z, 1.0, 1, 0 if true_d <= D else 1)

        res = log_search(oracle, 1, 16)
        assert res.eed == (true_d if true_d <= 16 else None)
        assert len(calls) <= 1 + math.ceil(math.log2(16)) and calls[0] == 16
        assert (res.best is None) == (true_d > 16)
    with pytest.raises(ValueError, match="d_min <= d_max"):
        log_search(oracle, 5, 4)


def test_pca_warm_start_keeps_an_embedding_that_lives_in_a_low_dim_affine_subspace(rng):
    g, pos = planted_rgg(80, 2, seed=2, degree=6)
    from lpca_metric_embed import rgg_radius

    r = rgg_radius(80, 2, 6)
    Q, _ = np.linalg.qr(rng.normal(size=(5, 5)))
    lift = np.hstack([pos, np.zeros((80, 3))]) @ Q + rng.normal(size=5)  # 2-dim affine subspace of R^5
    assert dense_mismatch(lift, lift, r, g).exact
    X2, Y2 = pca_init(lift, lift, 2, center=True)
    assert X2.shape == (80, 2) and dense_mismatch(X2, Y2, r, g).exact
    # without centring, a 2-dim projection of an affine (not linear) subspace loses the geometry
    X2u, Y2u = pca_init(lift, lift, 2, center=False)
    assert not dense_mismatch(X2u, Y2u, r, g).exact


def test_search_on_cliques_and_permutation_invariance(device):
    g = block_cliques(24, 4)
    kw = dict(d_max=8, lr=1.0, max_epochs=800, eval_every=50, seed=0, device=device)
    l2 = find_eed(g, model="l2", loss="hinge", **kw)
    lp = find_eed(g, model="lpca", loss="logistic", **kw)
    assert l2.eed == 1 and lp.eed == 3
    assert [f.dim for f in lp.trace] == [8, 4, 2, 3]
    perm = np.random.default_rng(5).permutation(24)
    assert find_eed(g.permuted(perm), model="l2", loss="hinge", **kw).eed == 1


def test_empty_complete_and_tiny_graphs(device):
    kw = dict(d_max=4, lr=1.0, max_epochs=400, eval_every=20, device=device)
    empty = from_edge_index(6, np.zeros((2, 0), dtype=int))
    assert find_eed(empty, model="l2", **kw).eed == 1
    assert find_eed(empty, model="lpca", loss="logistic", **kw).eed == 1
    assert find_eed(nx.complete_graph(6), model="l2", **kw).eed == 1
    assert find_eed(nx.complete_graph(6), model="lpca", loss="logistic", **kw).eed == 1
    one = find_eed(nx.empty_graph(1), model="l2", **kw)
    assert one.eed == 1 and one.trace[0].epochs == 0
    assert find_eed(nx.path_graph(2), model="l2", **kw).eed == 1


def test_poisson_loss_trains_with_its_log_half_threshold(device):
    g = block_cliques(20, 4)
    r = fit(g, 2, model="l2", loss="poisson", lr=0.5, max_epochs=1500, eval_every=50, device=device)
    assert r.tau == pytest.approx(math.log(0.5))
    assert dense_mismatch(r.X, r.Y, r.beta, g, r.tau).n_wrong == r.n_wrong
    assert r.exact


def test_active_set_training_reaches_an_exact_embedding_of_a_planted_rgg(device):
    g, _ = planted_rgg(400, 2, seed=0, degree=8)
    r = fit_active_set(g, 4, warmup_steps=150, max_iter=1500, seed=0, device=device)
    assert r.exact and r.curve["n_wrong"][-1] == 0
    assert dense_mismatch(r.X, r.Y, r.beta, g).exact  # independent (dense) certificate


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"dim": 0}, r"dimension D\) must be an integer >= 1"),
        ({"dim": 2, "model": "hyperbolic"}, "model must be one of"),
        ({"dim": 2, "loss": "mse"}, "loss must be one of"),
        ({"dim": 2, "lr": 0.0}, "lr and min_lr must be positive"),
    ],
)
def test_fit_refuses_bad_arguments(kw, match):
    with pytest.raises(ValueError, match=match):
        fit(block_cliques(6, 2), **kw)


def test_search_refuses_bad_ranges_and_trainers():
    g = block_cliques(6, 2)
    with pytest.raises(ValueError, match=r"dimension D\) must be an integer >= 1"):
        find_eed(g, d_min=0, d_max=3)
    with pytest.raises(ValueError, match="d_min <= d_max"):
        find_eed(g, d_min=4, d_max=3)
    with pytest.raises(ValueError, match="needs model='l2'"):
        find_eed(g, model="lpca", loss="logistic", trainer="active")
    with pytest.raises(ValueError, match="warm_start"):
        find_eed(g, d_max=2, warm_start="hot", max_epochs=1)
    with pytest.raises(ValueError, match="full-batch training"):
        fit(from_edge_index(10_001, np.array([[0], [1]])), 1)
