"""Staged training: the optimiser's update, the stage settings, weight decay's effect."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from compositional_dnn.models import ShallowNet
from compositional_dnn.optim import Adam
from compositional_dnn.training import train_staged


def numpy_adam(p, grads, lr, wd, b1=0.9, b2=0.999, eps=1e-8):
    m = v = np.zeros_like(p)
    for t, g in enumerate(grads, start=1):
        g = g + wd * p
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        p = p - lr * (m / (1 - b1**t)) / (np.sqrt(v) / math.sqrt(1 - b2**t) + eps)
    return p


def test_adam_matches_a_numpy_transcription():
    rng = np.random.default_rng(0)
    p0, grads = rng.standard_normal(6), [rng.standard_normal(6) for _ in range(5)]
    p = torch.tensor(p0, dtype=torch.float64, requires_grad=True)
    opt = Adam([p], lr=0.01, weight_decay=0.3)
    for g in grads:
        p.grad = torch.tensor(g)
        opt.step()
    np.testing.assert_allclose(p.detach().numpy(), numpy_adam(p0, grads, 0.01, 0.3), rtol=1e-12)


@pytest.mark.slow
def test_adam_matches_torch_optim_adam():
    torch.manual_seed(0)
    a, b = torch.randn(5, requires_grad=True), None
    b = a.detach().clone().requires_grad_(True)
    ours, ref = Adam([a], lr=0.05, weight_decay=0.1), torch.optim.Adam([b], lr=0.05, weight_decay=0.1)
    for _ in range(20):
        for p, opt in ((a, ours), (b, ref)):
            opt.zero_grad()
            (p**3).sum().backward()
            opt.step()
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-6)


def test_stages_set_lr_and_weight_decay_in_turn():
    X, Y = torch.randn(20, 3), torch.randn(20, 2)
    net = ShallowNet(3, 2, width=8, generator=torch.Generator().manual_seed(0))
    stages = ((1e-2, 0.0, 3), (3e-3, 1e-3, 2), (1e-3, 5e-3, 4))
    log = train_staged(net, X, Y, stages=stages, n_batches=2)
    assert log.stage_groups == tuple((lr, wd) for lr, wd, _ in stages)
    assert log.epoch_loss.shape == (9,)


def test_weight_decay_shrinks_the_weights():
    X, Y = torch.randn(40, 3), torch.zeros(40, 2)
    norms = []
    for wd in (0.0, 0.5):
        net = ShallowNet(3, 2, width=16, generator=torch.Generator().manual_seed(0))
        train_staged(net, X, Y, stages=((1e-2, wd, 30),), n_batches=1)
        norms.append(sum(float(p.detach().square().sum()) for p in net.parameters()))
    assert norms[1] < 0.8 * norms[0]


def test_training_fits_a_small_set():
    g = torch.Generator().manual_seed(1)
    X = torch.randn(30, 3, generator=g)
    Y = torch.sin(X[:, :1]) + X[:, 1:2] ** 2
    net = ShallowNet(3, 1, width=64, generator=g)
    log = train_staged(net, X, Y, stages=((1e-2, 0.0, 300),), n_batches=1)
    assert float(log.epoch_loss[-1]) < 0.05 * float(log.epoch_loss[0])


def test_bad_stages_are_refused():
    net = ShallowNet(3, 1, width=4)
    X, Y = torch.zeros(5, 3), torch.zeros(5, 1)
    with pytest.raises(ValueError, match="stages lr"):
        train_staged(net, X, Y, stages=((-1.0, 0.0, 3),))
    with pytest.raises(ValueError, match="stages epochs"):
        train_staged(net, X, Y, stages=((1e-3, 0.0, 0),))
    with pytest.raises(ValueError, match="n_batches"):
        train_staged(net, X, Y, stages=((1e-3, 0.0, 1),), n_batches=6)
