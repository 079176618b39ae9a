"""Width conventions, ReLU -> DFF conversion and the convexity sanity check behind the paper's theory."""

from __future__ import annotations

import pytest
import torch
from deep_fourier.layers import FourierActivation
from deep_fourier.metrics import hidden_features
from deep_fourier.models import convert_activations, network
from paperkit.optim import Adam
from torch import nn


@pytest.mark.parametrize("activation", ["relu", "dff", "crelu", "sin", "tanh"])
def test_every_post_activation_width_matches_in_match_features_mode(activation, device):
    net = network(activation, 64, (32, 16), 10, seed=0, device=device)
    x = torch.rand(5, 64, device=device)
    assert [h.shape[1] for h, _ in hidden_features(net, x)] == [32, 16]
    assert net(x).shape == (5, 10)
    assert net[-1].weight.shape == (10, 16)  # the head (linear, no activation) is the same for all


def test_match_units_doubles_the_features_and_odd_widths_are_refused():
    net = network("dff", 64, (32,), 10, width_mode="match_units")
    assert net[-1].in_features == 64 and net[1].out_features == 32
    with pytest.raises(ValueError, match=r"widths\[1\] must be even"):
        network("dff", 64, (32, 15), 10)
    with pytest.raises(ValueError, match="activation"):
        network("swish", 64, (32,), 10)


def test_same_seed_same_weights_and_the_global_rng_is_untouched():
    state = torch.random.get_rng_state()
    a, b = network("dff", 8, (4,), 3, seed=5), network("dff", 8, (4,), 3, seed=5)
    assert torch.equal(torch.random.get_rng_state(), state)
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters(), strict=True))


def test_convert_activations_keeps_widths_and_the_head():
    relu = nn.Sequential(
        nn.Flatten(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 10)
    )
    dff = convert_activations(relu)
    assert sum(isinstance(m, FourierActivation) for m in dff) == 2
    assert [h.shape[1] for h, _ in hidden_features(dff, torch.rand(3, 64))] == [32, 32]
    assert dff[-1].weight.numel() == relu[-1].weight.numel()
    assert isinstance(relu[2], nn.ReLU)  # the input model is not modified
    with pytest.raises(ValueError, match="must be even"):
        convert_activations(nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2)))
    with pytest.raises(TypeError, match="Dropout"):
        convert_activations(nn.Sequential(nn.Linear(4, 4), nn.Dropout(), nn.Linear(4, 2)))


def test_linear_model_keeps_plasticity_convexity():
    """[derived] A linear least-squares model trained on task 2 reaches the same loss from zero as from the
    task-1 solution: the optimum of a convex problem does not depend on where training starts."""
    g = torch.Generator().manual_seed(0)
    X1, X2 = (
        torch.randn(40, 5, generator=g, dtype=torch.float64),
        torch.randn(40, 5, generator=g, dtype=torch.float64),
    )
    y1, y2 = (
        torch.randn(40, generator=g, dtype=torch.float64),
        torch.randn(40, generator=g, dtype=torch.float64),
    )

    def fit(w, X, y, steps=1200):
        w = w.clone().requires_grad_(True)
        opt = Adam([w], lr=0.1)
        for _ in range(steps):
            opt.zero_grad()
            ((X @ w - y) ** 2).mean().backward()
            opt.step()
        return w.detach()

    after_task1 = fit(torch.zeros(5, dtype=torch.float64), X1, y1)
    from_zero = fit(torch.zeros(5, dtype=torch.float64), X2, y2)
    from_task1 = fit(after_task1, X2, y2)
    loss = lambda w: float(((X2 @ w - y2) ** 2).mean())  # noqa: E731
    optimum = torch.linalg.lstsq(X2, y2).solution
    assert loss(from_zero) == pytest.approx(loss(optimum), rel=1e-6)
    assert loss(from_task1) == pytest.approx(loss(optimum), rel=1e-6)
