"""Stop-gradient, the cosine distance, auto-balance and the gamma = 0 reduction to PGD-AT."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from arat.features import tapped_forward
from arat.layers import use_branch
from arat.losses import (
    asymmetric_invariance,
    auto_balance_weights,
    cosine_distance,
    cw_margin_loss,
    symmetric_invariance,
    trades_kl,
)
from arat.methods import method_config
from arat.models import backbone, default_layers
from arat.predictor import Predictor
from arat.training import batch_loss


def test_cosine_distance_range_and_positive_multiple():
    g = torch.Generator().manual_seed(0)
    u, v = torch.randn(50, 8, generator=g), torch.randn(50, 8, generator=g)
    d = cosine_distance(u, v)
    assert 0 <= float(d) <= 2
    assert float(cosine_distance(u, 3.0 * u)) == pytest.approx(0.0, abs=1e-6)
    assert float(cosine_distance(u, -u)) == pytest.approx(2.0, abs=1e-6)
    manual = 1 - ((u * v).sum(1) / (u.norm(dim=1) * v.norm(dim=1))).mean()
    assert float(d) == pytest.approx(float(manual), rel=1e-5)


def test_stop_gradient_clean_branch_gets_no_gradient_and_predictor_does():
    model = backbone(channels=(4, 4, 4, 4), seed=0).train()
    layers = default_layers(model)
    x = torch.rand(8, 1, 8, 8, generator=torch.Generator().manual_seed(0))
    with use_branch(model, "clean"):
        _, fc = tapped_forward(model, x, layers)
    with use_branch(model, "adv"):
        _, fa = tapped_forward(model, (x + 0.1).clamp(0, 1), layers)
    pred = Predictor(fa[layers[0]].shape[1])
    zc = fc[layers[0]]
    zc.retain_grad()
    loss = asymmetric_invariance(fa[layers[0]], zc, pred)
    loss.backward()
    clean_bn = [p for n, p in model.named_parameters() if ".bns.clean." in n]
    assert clean_bn and all(p.grad is None or float(p.grad.abs().sum()) == 0.0 for p in clean_bn)
    assert zc.grad is None or float(zc.grad.abs().sum()) == 0.0
    assert all(p.grad is not None and float(p.grad.abs().sum()) > 0 for p in pred.parameters())
    adv_bn = [p for n, p in model.named_parameters() if ".bns.adv." in n and p.grad is not None]
    assert adv_bn and any(float(p.grad.abs().sum()) > 0 for p in adv_bn)


def test_symmetric_loss_sends_gradient_to_both_sides_and_equals_the_plain_distance():
    g = torch.Generator().manual_seed(1)
    za, zc = (
        torch.randn(6, 5, generator=g, requires_grad=True),
        torch.randn(6, 5, generator=g, requires_grad=True),
    )
    s = symmetric_invariance(za, zc)
    assert float(s.detach()) == pytest.approx(float(cosine_distance(za, zc).detach()))
    s.backward()
    ga, gc = za.grad.clone(), zc.grad.clone()
    za.grad, zc.grad = None, None
    (0.5 * cosine_distance(za, zc)).backward()  # d/dz of the symmetric loss = half the plain one's
    torch.testing.assert_close(ga, za.grad)
    torch.testing.assert_close(gc, zc.grad)


def test_auto_balance_weights_sum_to_one_and_edge_cases():
    for acc in (0.0, 0.3, 0.9, 1.0):
        wa, wc = auto_balance_weights(acc)
        assert wa + wc == pytest.approx(1.0) and wa == pytest.approx(acc)
    assert auto_balance_weights(1.0) == (1.0, 0.0)
    assert auto_balance_weights(0.5, kappa=2.0) == pytest.approx((0.25, 0.25))
    with pytest.raises(ValueError, match="clean_accuracy"):
        auto_balance_weights(1.5)


def test_trades_kl_and_cw_margin_against_closed_forms():
    g = torch.Generator().manual_seed(2)
    a, c = torch.randn(7, 10, generator=g), torch.randn(7, 10, generator=g)
    p, q = F.softmax(c, 1), F.softmax(a, 1)
    assert float(trades_kl(a, c)) == pytest.approx(float((p * (p.log() - q.log())).sum(1).mean()), rel=1e-5)
    y = torch.arange(7) % 10
    margin = torch.stack([torch.cat([a[i, : y[i]], a[i, y[i] + 1 :]]).max() - a[i, y[i]] for i in range(7)])
    torch.testing.assert_close(cw_margin_loss(a, y), margin)


def test_gamma_zero_shared_bn_fixed_weights_is_exactly_pgd_at():
    """With gamma = 0, shared BN and (w_adv, w_clean) = (1, 0), the ARAT loss equals PGD-AT's on the batch."""
    x = torch.rand(16, 1, 8, 8, generator=torch.Generator().manual_seed(3))
    y = torch.arange(16) % 10
    at = method_config("at", epochs=1, steps=3)
    ar = method_config("arat", epochs=1, steps=3, gamma=0.0, split_bn=False, auto_balance=False, w_clean=0.0)
    losses = []
    for cfg in (at, ar):
        model = backbone(channels=(4, 4, 4, 4), split_bn=False, seed=5).train()
        gen = torch.Generator().manual_seed(9)
        losses.append(
            batch_loss(model, None, x, y, cfg, default_layers(model), (cfg.w_adv, cfg.w_clean), gen)
        )
    assert float(losses[0].detach()) == float(losses[1].detach())


def test_loss_inputs_are_checked():
    with pytest.raises(ValueError, match="same shape"):
        cosine_distance(torch.zeros(3, 4), torch.zeros(3, 5))
    with pytest.raises(ValueError, match="z_adv"):
        symmetric_invariance(torch.zeros(3), torch.zeros(3))
