"""ALIF dynamics against closed forms, and the exact surrogate gradient."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from barrel_snn.neurons import ALIFCell, alif_step, spike_fn


def _reference(cur_in, tau_m, tau_adp, b0, beta, u0, s0, T):
    """Scalar loop of the official equations in plain python floats."""
    a, r = math.exp(-1 / tau_m), math.exp(-1 / tau_adp)
    u, s, b = u0, s0, b0
    out = []
    for _ in range(T):
        b = r * b + (1 - r) * s
        theta = b0 + beta * b
        u = a * u + (1 - a) * cur_in - theta * s
        s = 1.0 if u - theta > 0 else 0.0
        out.append((u, s, b, theta))
    return out


@pytest.mark.parametrize("current", [0.02, 0.5, 2.0])
def test_alif_matches_scalar_reference(current):
    cell = ALIFCell(3, tau_m=10.0, tau_adp=5.0, b0=0.04).double()
    u = torch.zeros(1, 3, dtype=torch.float64)
    s = torch.zeros_like(u)
    b = torch.full_like(u, 0.04)
    ref = _reference(current, 10.0, 5.0, 0.04, 1.8, 0.0, 0.0, 60)
    cur = torch.full_like(u, current)
    for t in range(60):
        u, s, b = cell(cur, (u, s, b))
        assert u[0, 0].item() == pytest.approx(ref[t][0], abs=1e-12)
        assert s[0, 0].item() == ref[t][1]
        assert b[0, 0].item() == pytest.approx(ref[t][2], abs=1e-12)


def test_no_spike_below_threshold_closed_form():
    # u_t = I (1 - alpha^t) from u_0 = 0 never exceeds I < b0: no spike ever.
    alpha = math.exp(-1 / 10)
    u = torch.zeros(1, 1, dtype=torch.float64)
    s, b = torch.zeros_like(u), torch.full_like(u, 0.04)
    a = torch.tensor([alpha], dtype=torch.float64)
    r = torch.tensor([math.exp(-1 / 5)], dtype=torch.float64)
    for t in range(1, 200):
        u, s, b = alif_step(torch.full_like(u, 0.039), u, s, b, a, r, 0.04)
        assert u.item() == pytest.approx(0.039 * (1 - alpha**t), abs=1e-12)
        assert s.item() == 0.0


def test_adaptation_raises_threshold_after_a_spike():
    a = torch.tensor([math.exp(-1 / 10)])
    rho = math.exp(-1 / 5)
    r = torch.tensor([rho])
    b_prev = torch.tensor([[0.3]])
    # with a spike at t-1, b_t = rho b + (1 - rho): theta rises by (1 - rho) beta_a relative to no spike
    _, _, b_spk = alif_step(torch.zeros(1, 1), torch.zeros(1, 1), torch.ones(1, 1), b_prev, a, r, 0.04)
    _, _, b_no = alif_step(torch.zeros(1, 1), torch.zeros(1, 1), torch.zeros(1, 1), b_prev, a, r, 0.04)
    assert (1.8 * (b_spk - b_no)).item() == pytest.approx((1 - rho) * 1.8, rel=1e-6)


def test_surrogate_gradient_is_exact(rng):
    x = torch.tensor(rng.normal(size=(7, 5)), requires_grad=True)
    g = torch.tensor(rng.normal(size=(7, 5)))
    y = spike_fn(x, 0.5, 0.5)
    assert torch.equal(y, (x > 0).double())
    (y * g).sum().backward()
    xs = x.detach().numpy()
    expected = g.numpy() * 0.5 * np.exp(-(xs**2) / (2 * 0.25)) / (math.sqrt(2 * math.pi) * 0.5)
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-12)


def test_bad_cell_arguments():
    with pytest.raises(ValueError, match="n must be an integer >= 1"):
        ALIFCell(0)
    with pytest.raises(ValueError, match="tau_m must be a finite number >= 1"):
        ALIFCell(3, tau_m=0.5)
