"""Regularisers, the metrics and the continual trainer against closed forms."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from deep_fourier.metrics import dead_unit_fraction, effective_rank
from deep_fourier.models import network
from deep_fourier.regularizers import l2, l2_init, penalty, shrink_perturb
from deep_fourier.streams import Task
from deep_fourier.training import train_continual
from paperkit.optim import Adam


def test_l2_init_is_zero_at_init_and_its_gradient_is_2_lam_delta():
    net = network("dff", 6, (4,), 3, seed=0)
    params = list(net.parameters())
    init = [p.detach().clone() for p in params]
    assert float(l2_init(params, init, 0.3).detach()) == 0.0
    with torch.no_grad():
        for p in params:
            p.add_(0.1 * torch.randn_like(p))
    l2_init(params, init, 0.3).backward()
    for p, p0 in zip(params, init, strict=True):
        torch.testing.assert_close(p.grad, 2 * 0.3 * (p.detach() - p0))
    assert float(l2(params, 0.5)) == pytest.approx(0.5 * sum(float(p.square().sum()) for p in params))
    assert penalty("none", params, init, 1.0) is None
    with pytest.raises(ValueError, match="reg"):
        penalty("l1", params, init, 1.0)


def test_trainer_regulariser_gradient_equals_autograd_of_the_penalty():
    x = torch.rand(32, 6)
    task = Task(x, torch.randint(0, 3, (32,), generator=torch.Generator().manual_seed(1)))
    a, b = network("relu", 6, (8,), 3, seed=2), network("relu", 6, (8,), 3, seed=2)
    train_continual(a, [task], steps_per_task=3, batch_size=8, lr=1e-2, reg="l2_init", lam=0.05, seed=4)
    # the same three steps by hand, the penalty through autograd
    params = list(b.parameters())
    init = [p.detach().clone() for p in params]
    opt = Adam(params, lr=1e-2)
    idx = torch.randint(0, 32, (3, 8), generator=torch.Generator().manual_seed(4 * 100_003))
    for s in range(3):
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(b(x[idx[s]]), task.y_train[idx[s]])
        (loss + penalty("l2_init", params, init, 0.05)).backward()
        opt.step()
    for p, q in zip(a.parameters(), b.parameters(), strict=True):
        torch.testing.assert_close(p, q, rtol=1e-5, atol=1e-6)


def test_shrink_perturb_formula():
    net = network("relu", 4, (3,), 2, seed=0)
    before = [p.detach().clone() for p in net.parameters()]
    shrink_perturb(net, alpha=0.8, sigma=0.01, seed=3)
    g = torch.Generator().manual_seed(3)
    for p, p0 in zip(net.parameters(), before, strict=True):
        torch.testing.assert_close(p.detach(), 0.8 * p0 + 0.01 * torch.randn(p0.shape, generator=g))


def test_effective_rank_closed_forms():
    assert effective_rank(torch.eye(7)) == pytest.approx(7.0)
    assert effective_rank(torch.ones(5, 1) @ torch.rand(1, 6)) == pytest.approx(1.0, abs=1e-6)
    s = torch.tensor([3.0, 1.0])
    p = s / s.sum()
    assert effective_rank(torch.diag(s)) == pytest.approx(math.exp(-(p * p.log()).sum().item()))
    assert effective_rank(torch.zeros(3, 3)) == 0.0


def test_dead_units_relu_can_die_dff_cannot():
    relu = network("relu", 4, (6,), 2, seed=0)
    dff = network("dff", 4, (6,), 2, seed=0)
    x = torch.rand(50, 4)
    with torch.no_grad():
        relu[1].weight.abs_()
        relu[1].bias[:] = 0.1  # every unit positive on [0, 1]^4 ...
        relu[1].bias[:2] = -100.0  # ... except two, negative on every input
        dff[1].bias[:] = -100.0
        dff[1].weight[:] = 0.0  # the most adversarial DFF unit: constant pre-activation
    assert dead_unit_fraction(relu, x) == pytest.approx(2 / 6)
    assert dead_unit_fraction(dff, x) == 0.0


def test_history_records_and_edge_cases(device):
    g = torch.Generator().manual_seed(0)
    x = torch.rand(64, 6, generator=g).to(device)
    y = torch.randint(0, 3, (64,), generator=g).to(device)
    tasks = [Task(x, y, x[:16], y[:16]), Task(x, (y + 1) % 3)]
    net = network("dff", 6, (8,), 3, seed=0, device=device)
    h = train_continual(net, tasks, steps_per_task=20, batch_size=16, lr=1e-2, seed=0)
    assert h.n_tasks == 2 and h.online_curve.shape == (2, 5)
    assert np.isfinite(h.test_accuracy[0]) and np.isnan(h.test_accuracy[1])
    assert h.distance_from_init[0] > 0 and (h.dead_fraction == 0).all()
    assert h.online_curve.mean(1) == pytest.approx(h.online_accuracy)
    empty = train_continual(net, [], steps_per_task=5, seed=0)
    assert empty.n_tasks == 0 and empty.online_curve.shape == (0, 5)
    with pytest.raises(ValueError, match="steps_per_task"):
        train_continual(net, tasks, steps_per_task=0)
    with pytest.raises(ValueError, match="reg"):
        train_continual(net, tasks, steps_per_task=5, reg="dropout")
