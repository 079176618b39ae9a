"""PLG, kNN and NLE against brute force and the properties a wrong implementation breaks."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from plnl.recovery import (
    intensity,
    knn_indices,
    negative_label_enhancement,
    nle_counts,
    positive_label_guessing,
)


def _queue(*rows: list[float]) -> torch.Tensor:
    """qs softmax vectors of one example -> (qs, 1, K)."""
    return torch.tensor(rows, dtype=torch.float32)[:, None, :]


C_NONE = torch.tensor([[0.0, 0.0, 1.0]])


def test_plg_flags_only_when_all_three_criteria_hold():
    good = _queue([0.995, 0.004, 0.001], [0.996, 0.003, 0.001], [0.999, 0.0005, 0.0005])
    flags, y = positive_label_guessing(good, C_NONE, lam=0.99)
    assert bool(flags[0]) and int(y[0]) == 0
    # (i) the guess is a complementary class
    assert not bool(positive_label_guessing(good, torch.tensor([[1.0, 0.0, 0.0]]), lam=0.99)[0][0])
    # (ii) the mean max-probability is not above lambda
    low = _queue([0.98, 0.01, 0.01], [0.99, 0.005, 0.005], [0.99, 0.005, 0.005])
    assert not bool(positive_label_guessing(low, C_NONE, lam=0.99)[0][0])
    # (iii) the argmax changes within the queue although the mean is confident
    flip = _queue([1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.45, 0.55, 0.0])
    mean_top = float(flip.mean(0).max())
    assert mean_top > 0.8
    assert not bool(positive_label_guessing(flip, C_NONE, lam=0.8)[0][0])
    # lambda >= 1 never fires
    assert not bool(positive_label_guessing(good, C_NONE, lam=1.0)[0][0])


def test_plg_identical_confident_vectors_flag_exactly_those_above_lambda():
    g = torch.Generator().manual_seed(0)
    p = torch.softmax(3 * torch.randn(200, 5, generator=g), 1)
    C = torch.zeros(200, 5)
    C[torch.arange(200), (p.argmax(1) + 1) % 5] = 1  # never the argmax
    flags, y = positive_label_guessing(p.expand(3, 200, 5), C, lam=0.9)
    assert torch.equal(flags, p.max(1).values > 0.9) and torch.equal(y, p.argmax(1))
    assert not bool((C[torch.arange(200), y] * flags).any())  # never a complementary class


def test_knn_matches_brute_force_sorting_and_excludes_self():
    g = torch.Generator().manual_seed(1)
    logits = torch.randn(30, 4, generator=g)
    idx = knn_indices(logits, 5)
    z = (logits / logits.norm(dim=1, keepdim=True)).numpy().astype(np.float64)
    for i in range(30):
        d = [(float(((z[i] - z[j]) ** 2).sum()), j) for j in range(30) if j != i]
        assert idx[i].tolist() == [j for _, j in sorted(d)[:5]]
    assert knn_indices(logits, 100).shape == (30, 29)  # k >= n clamps to n - 1


def test_intensity_is_the_brute_force_neighbour_count():
    g = torch.Generator().manual_seed(2)
    C0 = (torch.rand(20, 6, generator=g) < 0.3).float()
    knn = knn_indices(torch.randn(20, 6, generator=g), 4)
    inten = intensity(C0, knn)
    for i in range(20):
        want = sum(C0[j] for j in knn[i].tolist())
        assert torch.equal(inten[i], want)


def _problem(seed: int, n: int = 40, K: int = 10):
    g = torch.Generator().manual_seed(seed)
    y = torch.arange(n) % K
    C0 = torch.zeros(n, K)
    C0[torch.arange(n), (y + 1 + torch.randint(0, K - 1, (n,), generator=g)) % K] = 1
    logits = 2 * torch.randn(n, K, generator=g)
    return C0, logits


def test_nle_rebuilds_from_c0_keeps_originals_and_respects_the_counts():
    C0, logits = _problem(3)
    probs = torch.softmax(logits, 1)
    knn = knn_indices(logits, 8)
    out = negative_label_enhancement(C0, knn, probs, t=0.3)
    again = negative_label_enhancement(C0, knn, probs, t=0.3)
    assert torch.equal(out, again)  # idempotent for fixed inputs: no state, rebuilt from C0
    assert bool((out >= C0).all())  # never removes an original complementary label
    added = (out - C0).sum(1)
    a = nle_counts(C0, probs, t=0.3)
    assert bool((added <= a).all())
    top = probs.max(1).values
    under = top <= top.mean()
    assert bool((added[under] <= 1).all()) and bool((a[under] == 1).all())
    assert int(a[~under][0]) == math.ceil(0.3 * (9 - 1))
    assert bool((out.sum(1) < out.shape[1]).all())  # never a row of all ones
    # the added classes are the highest-intensity ones: each added class has intensity >= any unchosen
    inten = intensity(C0, knn)
    for i in range(len(C0)):
        new = (out[i] - C0[i]).bool()
        if new.any():
            assert float(inten[i][new].min()) >= float(inten[i][~out[i].bool()].max())


def test_nle_t0_adds_only_for_under_confident_and_guard_keeps_one_candidate():
    C0, logits = _problem(4)
    probs = torch.softmax(logits, 1)
    knn = knn_indices(logits, 8)
    out = negative_label_enhancement(C0, knn, probs, t=0.0)
    top = probs.max(1).values
    assert float((out - C0)[top > top.mean()].sum()) == 0.0
    # a row with one candidate left gets nothing (official top-1 could make it all ones)
    C1 = torch.ones(4, 3)
    C1[:, 0] = 0
    C1[1:, 1] = 0
    got = negative_label_enhancement(C1, knn_indices(torch.randn(4, 3), 2), torch.full((4, 3), 1 / 3), t=1.0)
    assert torch.equal(got[0], C1[0]) and bool((got.sum(1) <= 2).all())


def test_nle_constant_ablation_adds_that_many_where_possible():
    C0, logits = _problem(5)
    out = negative_label_enhancement(C0, knn_indices(logits, 8), torch.softmax(logits, 1), constant=2)
    assert bool(((out - C0).sum(1) <= 2).all())


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="prob_queue must be"):
        positive_label_guessing(torch.zeros(2, 3), torch.zeros(2, 3))
    with pytest.raises(ValueError, match="k must be"):
        knn_indices(torch.randn(5, 3), 0)
    with pytest.raises(ValueError, match="t must be"):
        nle_counts(torch.zeros(2, 3), torch.zeros(2, 3), t=-0.1)
