"""Config validation and the training loop on a tiny problem."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from barrel_snn.baselines import CNN1D, GRUClassifier, LSTMClassifier
from barrel_snn.models import BarrelSNN
from barrel_snn.reproduce import Config
from barrel_snn.training import accuracy, train


def test_scales_are_valid_and_ordered():
    q, f, s = Config.quick(), Config.full(), Config.smoke()
    assert s.scale < q.scale <= f.scale
    assert q.n_seeds == 1 and f.n_seeds == 3
    # full: a quarter of the official 8e-3 for its 8x smaller batch (RESULTS.md); quick keeps 8e-3
    assert (f.lr, f.batch, q.lr, q.batch) == (2e-3, 16, 8e-3, 16)
    assert f.brian_full_trials > 0


@pytest.mark.parametrize(
    ("kw", "msg"),
    [
        ({"scale": 0.0}, "scale must be a finite number in"),
        ({"scale": 2.0}, "scale must be a finite number in"),
        ({"n_train": 0}, "n_train must be an integer >= 1"),
        ({"dep_counts": (1, 2)}, "dep_counts must contain 0"),
        ({"brian_trials": 1000}, "brian_trials must be an integer in"),
    ],
)
def test_bad_configs(kw, msg):
    with pytest.raises(ValueError, match=msg):
        Config(**kw)


def test_snn_training_fits_a_trivially_separable_task():
    # class = which half of the channels fires: a model that learns at all separates it
    rng = np.random.default_rng(0)
    n, T = 24, 15
    y = np.arange(n) % 3
    xf = (rng.random((n, T, 93)) < 0.05).astype(np.float32)
    for k in range(3):
        xf[y == k, :, 31 * k : 31 * (k + 1)] = rng.random(((y == k).sum(), T, 31)) < 0.6
    xt = xf.copy()
    model = BarrelSNN(scale=0.02, seed=0)
    before = [p.detach().clone() for p in model.parameters()]
    hist = train(model, xf, xt, y, epochs=6, batch=8, seed=0, lr=0.02)
    assert hist.loss[-1] < hist.loss[0]
    assert any(not torch.equal(a, b) for a, b in zip(before, model.parameters(), strict=True))
    assert accuracy(model, xf, xt, y) >= 0.6


@pytest.mark.parametrize("cls", [LSTMClassifier, GRUClassifier, CNN1D])
def test_baselines_shapes_and_seeding(cls):
    x = torch.zeros(2, 30, 93)
    a, b = cls(seed=1), cls(seed=1)
    assert a(x, x).shape == (2, 3)
    for p, q in zip(a.parameters(), b.parameters(), strict=True):
        assert torch.equal(p, q)
    c = cls(seed=2)  # the seed must matter
    assert any(not torch.equal(p, q) for p, q in zip(a.parameters(), c.parameters(), strict=True))
    torch.testing.assert_close(a(x, x), b(x, x), rtol=0, atol=0)


def test_train_refuses_mismatched_data():
    model = BarrelSNN(scale=0.02)
    with pytest.raises(ValueError, match="labels must have shape"):
        train(model, np.zeros((4, 5, 93), np.float32), np.zeros((4, 5, 93), np.float32), np.zeros(3))
