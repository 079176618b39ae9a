"""Staged training: the optimiser's update, the stage settings, weight decay's effect."""

from __future__ import annotations

import pytest
import torch
from compositional_dnn.models import ShallowNet
from compositional_dnn.training import train_staged


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
