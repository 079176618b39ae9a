"""AccNet shapes, the shallow special case, the ReLU rescaling and the complexity proxies."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from compositional_dnn.models import AccNet, DeepMLP, ShallowNet


def gen(seed=0):
    return torch.Generator().manual_seed(seed)


def test_accnet_shapes_and_parameter_count():
    net = AccNet(15, 20, wide=64, narrow=8, n_blocks=3, generator=gen())
    assert net.widths == [15, 64, 8, 64, 8, 64, 20]
    n = sum(p.numel() for p in net.parameters())
    assert n == (15 * 64 + 64) + 2 * (64 * 8 + 8) + (8 * 64 + 64) * 2 + (64 * 20 + 20)
    assert net(torch.zeros(7, 15)).shape == (7, 20)
    assert net.representation_dims() == [15, 8, 8, 20]


def test_one_block_is_exactly_a_shallow_net():
    acc = AccNet(5, 3, wide=32, narrow=4, n_blocks=1, generator=gen(2))
    sh = ShallowNet(5, 3, width=32, generator=gen(2))
    x = torch.randn(10, 5)
    np.testing.assert_array_equal(acc(x).detach().numpy(), sh(x).detach().numpy())


def test_forward_is_relu_after_every_layer_but_the_last():
    net = DeepMLP(4, 2, width=6, depth=2, generator=gen(1))
    x = torch.randn(5, 4)
    h = x
    for i, lin in enumerate(net.linears):
        h = h @ lin.weight.T + lin.bias
        if i < len(net.linears) - 1:
            h = h.clamp_min(0)
    np.testing.assert_allclose(net(x).detach().numpy(), h.detach().numpy(), rtol=1e-6, atol=1e-6)


def test_rebalance_keeps_f_and_attains_the_am_gm_value():
    net = AccNet(6, 3, wide=40, narrow=5, n_blocks=2, generator=gen(3))
    with torch.no_grad():  # unbalance it: the rescaling must undo this
        net.linears[0].weight.mul_(torch.rand(40, 1) * 5 + 0.1)
    x = torch.randn(50, 6)
    before, r_before = net(x), net.f1_norm_proxy(include_bias=True)
    net.rebalance()
    np.testing.assert_allclose(net(x).detach().numpy(), before.detach().numpy(), atol=1e-6, rtol=1e-5)
    r_after = net.f1_norm_proxy(include_bias=True)
    for (lin_v, lin_w), r in zip(net.blocks(), r_after, strict=True):
        V, b, W = lin_v.weight.detach(), lin_v.bias.detach(), lin_w.weight.detach()
        vb = torch.sqrt(V.square().sum(1) + b.square())
        w = torch.linalg.vector_norm(W, dim=0)
        np.testing.assert_allclose(vb.numpy(), w.numpy(), atol=1e-5, rtol=1e-5)
        assert float(r) == pytest.approx(float((vb * w).sum()), rel=1e-5)
    assert torch.all(r_after <= r_before + 1e-6)


def test_scaling_a_block_scales_its_lipschitz_proxy_by_c_squared():
    net = AccNet(6, 3, wide=20, narrow=4, n_blocks=2, generator=gen(4))
    rho = net.lipschitz_proxy()
    with torch.no_grad():
        for lin in net.blocks()[1]:
            lin.weight.mul_(3.0)
    new = net.lipschitz_proxy()
    assert float(new[1]) == pytest.approx(9 * float(rho[1]), rel=1e-5)
    assert float(new[0]) == pytest.approx(float(rho[0]))


def test_complexity_against_numpy():
    net = AccNet(6, 3, wide=20, narrow=4, n_blocks=2, generator=gen(5))
    X = torch.randn(30, 6)
    Ws = [lin.weight.detach().numpy().astype(float) for lin in net.linears]
    R = [0.5 * (np.sum(Ws[i] ** 2) + np.sum(Ws[i + 1] ** 2)) for i in (0, 2)]
    rho = [np.linalg.norm(Ws[i], 2) * np.linalg.norm(Ws[i + 1], 2) for i in (0, 2)]
    dims = [6, 4, 3]
    want = (
        np.linalg.norm(X.numpy(), axis=1).max()
        * np.prod(rho)
        * sum(R[k] / rho[k] * math.sqrt(dims[k] + dims[k + 1]) for k in range(2))
        / math.sqrt(30)
    )
    assert net.complexity(X) == pytest.approx(want, rel=1e-4)


def test_complexity_needs_accordion_blocks():
    with pytest.raises(ValueError, match="even number of layers"):
        DeepMLP(4, 2, width=6, depth=2).complexity(torch.zeros(3, 4))


def test_bad_sizes_are_refused():
    with pytest.raises(ValueError, match="n_blocks"):
        AccNet(4, 2, wide=8, narrow=2, n_blocks=0)
    with pytest.raises(ValueError, match="width must"):
        ShallowNet(4, 2, width=0)
