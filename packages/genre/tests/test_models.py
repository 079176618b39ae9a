"""The pair model: soft targets, the loss against torch's soft-label cross-entropy, causal structure by
autograd, and the sampler's conventions (inverse temperature, left edges, σ = 0, shapes)."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from genre.models import PairTransformer, bin_edges, soft_targets


def small(d: int, device: str, dropout: float = 0.0) -> PairTransformer:
    torch.manual_seed(0)
    return PairTransformer(
        d, n_bins=20, emb=8, heads=2, enc_layers=1, dec_layers=2, ff=16, dropout=dropout, device=device
    )


def test_soft_targets_sum_to_one_and_peak_at_the_left_edge():
    B = 50
    edges = bin_edges(B)
    q = soft_targets(edges.double(), B)
    torch.testing.assert_close(q.sum(-1), torch.ones(B, dtype=torch.float64))
    assert torch.equal(q.argmax(-1), torch.arange(B))
    # 1.0 is past the last left edge 0.98: the nearest edge wins
    assert int(soft_targets(torch.tensor([1.0]), B).argmax()) == B - 1
    # closed form at one point
    x = torch.tensor(0.313, dtype=torch.float64)
    logits = -(B**2) * (x - edges.double()) ** 2 / 2
    torch.testing.assert_close(soft_targets(x, B), torch.softmax(logits, -1))


def test_loss_equals_soft_label_cross_entropy(device):
    m = small(3, device)
    g = torch.Generator().manual_seed(1)
    xn, xp = torch.rand(6, 3, generator=g).to(device), torch.rand(6, 3, generator=g).to(device)
    yn, yp = torch.tensor([0, 1, 0, 1, 1, 0.0], device=device), torch.ones(6, device=device)
    z = m.logits(xn, yn, xp, yp)  # (n, d, B)
    expected = F.cross_entropy(z.transpose(1, 2), soft_targets(xp, 20).transpose(1, 2), reduction="none").sum(
        1
    )
    torch.testing.assert_close(m.loss(xn, yn, xp, yp), expected)
    assert z.shape == (6, 3, 20)


def test_logits_are_causal_in_the_target_features(device):
    d = 4
    m = small(d, device).train()
    xn = torch.rand(5, d, device=device)
    xp = torch.rand(5, d, device=device, requires_grad=True)
    ones = torch.ones(5, device=device)
    z = m.logits(xn, ones * 0, xp, ones)
    for j in range(d):
        (grad,) = torch.autograd.grad(z[:, j].pow(2).sum(), xp, retain_graph=True)
        assert torch.all(grad[:, j:] == 0), f"logits of feature {j} depend on x⁺_{{>= {j}}}"
        if j > 0:
            assert torch.all(grad[:, :j].abs().sum(0) > 0), f"logits of feature {j} ignore the prefix"
    # and they depend on the source x⁻
    xn2 = xn.clone().requires_grad_(True)
    (gn,) = torch.autograd.grad(m.logits(xn2, ones * 0, xp.detach(), ones).sum(), xn2)
    assert gn.abs().sum() > 0


def test_sample_matches_teacher_forced_logits_when_argmax(device):
    """Argmax decoding (inv_temp = inf) equals decoding with a huge inverse temperature, and each step's
    choice is the argmax of the teacher-forced logits given the sampled prefix."""
    m = small(3, device).eval()
    xn = torch.rand(7, 3, device=device)
    g = torch.Generator(device=device).manual_seed(0)
    greedy = m.sample(xn, inv_temp=math.inf)
    sharp = m.sample(xn, inv_temp=1e6, generator=g)
    torch.testing.assert_close(greedy, sharp)
    ones = torch.ones(7, device=device)
    with torch.no_grad():
        z = m.logits(xn, ones, greedy, ones)
    torch.testing.assert_close(m.edges[z.argmax(-1)], greedy)


def test_sigma_zero_returns_exact_left_edges_and_centres_are_offset(device):
    m = small(2, device)
    xn = torch.rand(50, 2, device=device)
    g = torch.Generator(device=device).manual_seed(3)
    s = m.sample(xn, inv_temp=1.0, generator=g)
    assert s.shape == (50, 2)
    idx = torch.round(s * 20)
    torch.testing.assert_close(s, idx / 20)
    assert s.min() >= 0 and s.max() <= 19 / 20
    g = torch.Generator(device=device).manual_seed(3)
    c = m.sample(xn, inv_temp=1.0, generator=g, bin_centres=True)
    torch.testing.assert_close(c, s + 0.5 / 20)
    g = torch.Generator(device=device).manual_seed(3)
    noisy = m.sample(xn, inv_temp=1.0, sigma=0.01, generator=g)
    assert not torch.equal(noisy, s)


def test_one_feature_decoder_sees_only_the_label(device):
    m = small(1, device).eval()
    xn = torch.rand(4, 1, device=device)
    s = m.sample(xn, inv_temp=math.inf)
    assert s.shape == (4, 1)
    zeros, ones = torch.zeros(4, device=device), torch.ones(4, device=device)
    z = m.logits(xn, zeros, torch.rand(4, 1, device=device), ones)
    assert z.shape == (4, 1, 20)
    # the only feature's logits cannot depend on x⁺ (the decoder input is [y⁺] alone) ...
    torch.testing.assert_close(m.logits(xn, zeros, torch.rand(4, 1, device=device), ones), z)
    # ... and argmax decoding picks their argmax (the sampler feeds y⁻ = y⁺ = 1 by default)
    with torch.no_grad():
        z1 = m.logits(xn, ones, s, ones)
    torch.testing.assert_close(m.edges[z1[:, 0].argmax(-1)], s[:, 0])


def test_same_generator_seed_same_samples(device):
    m = small(3, device)
    xn = torch.rand(10, 3, device=device)
    a = m.sample(xn, inv_temp=1.0, generator=torch.Generator(device=device).manual_seed(5))
    b = m.sample(xn, inv_temp=1.0, generator=torch.Generator(device=device).manual_seed(5))
    assert torch.equal(a, b)


@pytest.mark.parametrize(("kw", "match"), [({"emb": 10, "heads": 3}, "divisible"), ({"n_bins": 0}, "n_bins")])
def test_bad_construction(kw, match):
    with pytest.raises(ValueError, match=match):
        PairTransformer(2, **kw)
