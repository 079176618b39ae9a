"""Stage 2: pair sampling against a per-anchor loop, the loss against the formula, gradient routing."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from sebra.contrastive import rank_contrastive_loss, sample_pairs
from sebra.debias import DebiasConfig, sebra_debias, stage2_loss
from sebra.training import build_net


def _ranks(seed=0, n=120):
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, 3, (n,), generator=g)
    r = torch.randint(1, 8, (n,), generator=g)
    r[y == 2] = torch.where(r[y == 2] > 3, 3, 1)  # class 2: buckets 1 and 3 only (empty 2)
    return y, r


@pytest.mark.parametrize("gap", [1, 2, 5])
def test_pairs_follow_the_rule_of_the_official_sampler(gap):
    y, r = _ranks()
    a, p, n = sample_pairs(y, r, torch.arange(len(y)), gap=gap, generator=torch.Generator().manual_seed(1))
    assert torch.equal(a, torch.arange(len(y)))  # nobody dropped: the top bucket is never empty
    for i, pi, ni in zip(a.tolist(), p.tolist(), n.tolist(), strict=True):
        c, ri = int(y[i]), int(r[i])
        ranks_c = sorted(set(r[y == c].tolist()))
        target = min(ri + gap, max(ranks_c))
        want = min(k for k in ranks_c if k >= target)
        assert int(y[pi]) == c and int(r[pi]) == want and int(r[pi]) >= ri
        assert int(y[ni]) == c and int(r[ni]) == ri


def test_drop_top_drops_exactly_the_anchors_without_a_higher_bucket():
    y, r = _ranks(2)
    a, p, n = sample_pairs(y, r, torch.arange(len(y)), gap=2, generator=torch.Generator().manual_seed(0),
                           drop_top=True)  # fmt: skip
    top = torch.tensor([int(r[i]) == int(r[y == y[i]].max()) for i in range(len(y))])
    assert torch.equal(a, torch.nonzero(~top)[:, 0])
    assert torch.all(r[p] > r[a]) and torch.all(y[p] == y[a]) and torch.all(r[n] == r[a])


def test_pairs_draw_uniformly_within_a_bucket():
    y = torch.zeros(40, dtype=torch.int64)
    r = torch.tensor([1] * 10 + [2] * 30)
    anchors = torch.zeros(6000, dtype=torch.int64)  # sample 0, rank 1: positives from bucket 2 (30 members)
    _, p, n = sample_pairs(y, r, anchors, gap=1, generator=torch.Generator().manual_seed(0))
    counts = np.bincount(p.numpy(), minlength=40)[10:]
    assert counts.min() > 120 and counts.max() < 280  # 200 expected each
    assert set(n.tolist()) == set(range(10))


def test_pairs_handle_the_codes_unranked_minus_one():
    y = torch.tensor([0, 0, 0, 1, 1, 1])
    r = torch.tensor([-1, 1, 2, 1, 1, 3])
    a, p, _ = sample_pairs(y, r, torch.arange(6), gap=2, generator=torch.Generator().manual_seed(0))
    assert int(r[p[0]]) == 1 and int(r[p[3]]) == 3 and torch.all(y[p] == y[a])


def _loop_loss(a, p, n, tau):
    def cos(u, v):
        return float(u @ v / (u.norm() * v.norm()))

    B = len(a)
    den = sum(math.exp(cos(a[j], n[j]) / tau) + math.exp(cos(a[j], p[j]) / tau) for j in range(B))
    return sum(-cos(a[i], p[i]) / tau + math.log(den) for i in range(B)) / B


def test_loss_equals_the_formula_with_a_batch_summed_denominator():
    g = torch.Generator().manual_seed(0)
    a, p, n = (torch.randn(6, 5, generator=g, dtype=torch.float64) for _ in range(3))
    for tau in (0.05, 0.5):
        assert float(rank_contrastive_loss(a, p, n, tau)) == pytest.approx(_loop_loss(a, p, n, tau), rel=1e-9)
    # cosine: invariant to scaling each feature vector
    s = torch.rand(6, 1, generator=g, dtype=torch.float64) + 0.1
    ref = float(rank_contrastive_loss(a, p, n, 0.1))
    assert float(rank_contrastive_loss(a * s, p * 3, n / s, 0.1)) == pytest.approx(ref)
    # moving a positive toward its anchor lowers the loss
    closer = p.clone()
    closer[0] = 0.5 * p[0] + 0.5 * a[0] * p[0].norm() / a[0].norm()
    assert float(rank_contrastive_loss(a, closer, n, 0.1)) < float(rank_contrastive_loss(a, p, n, 0.1))


def test_stage2_gradient_flows_through_anchors_and_the_positives_head_pass_only():
    """Recompute the loss by hand with the snapshot features treated as constants; gradients must match."""
    g = torch.Generator().manual_seed(0)
    xa, xp, xn = (torch.rand(8, 1, 16, 16, generator=g) for _ in range(3))
    yp = torch.randint(0, 2, (8,), generator=g)
    net = build_net(seed=0)
    stage2_loss(net, xa, xp, xn, yp, tau=0.1, cls_weight=0.5).backward()
    got = [q.grad.clone() for q in net.parameters()]
    ref = build_net(seed=0)
    ref.eval()
    fp, fn = ref.encoder(xp).detach(), ref.encoder(xn).detach()
    ref.train()
    feats = ref.encoder(torch.cat([xa, xp]))
    s_p = torch.nn.functional.cosine_similarity(feats[:8], fp) / 0.1
    s_n = torch.nn.functional.cosine_similarity(feats[:8], fn) / 0.1
    con = (torch.log(torch.exp(s_n).sum() + torch.exp(s_p).sum()) - s_p).mean()
    (con + 0.5 * torch.nn.functional.cross_entropy(ref.head(feats[8:]), yp)).backward()
    for a, b in zip(got, (q.grad for q in ref.parameters()), strict=True):
        assert a.numpy() == pytest.approx(b.numpy(), rel=1e-4, abs=1e-6)


def test_bad_inputs_of_stage_2():
    with pytest.raises(ValueError, match="gap"):
        DebiasConfig(gap=0)
    with pytest.raises(ValueError, match="tau"):
        rank_contrastive_loss(torch.ones(2, 3), torch.ones(2, 3), torch.ones(2, 3), 0.0)
    with pytest.raises(ValueError, match="gap"):
        sample_pairs(torch.tensor([0, 1]), torch.tensor([1, 1]), torch.arange(2), gap=0,
                     generator=torch.Generator())  # fmt: skip
    x = torch.zeros(4, 1, 16, 16)
    with pytest.raises(ValueError, match="single class"):
        sebra_debias(x, torch.zeros(4, dtype=torch.int64), torch.ones(4, dtype=torch.int64), seed=0)
    with pytest.raises(ValueError, match="ranks"):
        sebra_debias(x, torch.tensor([0, 0, 1, 1]), torch.ones(3, dtype=torch.int64), seed=0)


def test_a_class_with_one_bucket_under_drop_top_warns_and_still_trains():
    g = torch.Generator().manual_seed(0)
    x = torch.rand(12, 1, 16, 16, generator=g)
    y = torch.tensor([0] * 6 + [1] * 6)
    ranks = torch.tensor([1, 1, 1, 2, 2, 2] + [1] * 6)  # class 1: a single bucket
    cfg = DebiasConfig(epochs=1, batch_size=8, drop_top=True)
    with pytest.warns(RuntimeWarning, match=r"classes \[1\]"):
        fit = sebra_debias(x, y, ranks, cfg, seed=0)
    assert fit.best_epoch == 1
