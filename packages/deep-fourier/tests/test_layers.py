"""The DFF layer against its defining formula and the exact properties the paper's argument uses."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from deep_fourier.layers import CReLU, DFFConv2d, DFFLinear, FourierActivation, Sine, pre_activations


def test_output_is_the_concatenation_of_sine_and_cosine():
    z = torch.randn(4, 3, 5, 5, dtype=torch.float64)
    out = FourierActivation(dim=1)(z)
    assert out.shape == (4, 6, 5, 5)
    assert torch.equal(out, torch.cat([torch.sin(z), torch.cos(z)], dim=1))
    zero = FourierActivation(dim=-1)(torch.zeros(2, 7))
    assert torch.equal(zero, torch.cat([torch.zeros(2, 7), torch.ones(2, 7)], dim=1))
    assert torch.allclose(FourierActivation(omega=3.0)(z), torch.cat([torch.sin(3 * z), torch.cos(3 * z)], 1))
    assert torch.equal(CReLU()(z), torch.cat([z.clamp(min=0), (-z).clamp(min=0)], 1))
    assert torch.equal(Sine()(z), torch.sin(z))


def test_unit_jacobian_and_no_cross_talk():
    """(d h_i/d z_i)^2 + (d h_{i+k}/d z_i)^2 = 1 for every unit, and no unit's output depends on another z."""
    z = torch.cat([torch.randn(6, dtype=torch.float64), torch.tensor([1e3, -5e4, 1e6], dtype=torch.float64)])
    z.requires_grad_(True)
    out = FourierActivation(dim=0)(z)
    k = len(z)
    d_sin = torch.autograd.grad(out[:k].sum(), z, retain_graph=True)[0]
    d_cos = torch.autograd.grad(out[k:].sum(), z, retain_graph=True)[0]
    assert torch.allclose(d_sin**2 + d_cos**2, torch.ones(k, dtype=torch.float64), rtol=0, atol=1e-12)
    # a random cotangent u pulls back to u_i d_sin_i + u_{i+k} d_cos_i exactly when J is block-diagonal
    u = torch.randn(2 * k, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    pulled = torch.autograd.grad(out, z, grad_outputs=u)[0]
    assert torch.allclose(pulled, u[:k] * d_sin + u[k:] * d_cos, rtol=0, atol=1e-12)


def test_adaptive_linearity_inequality():
    """At every z one branch f has |f'| >= 1/sqrt(2) >= |f''| (f'' = -f for sin and cos)."""
    z = torch.empty(100_000, dtype=torch.float64).uniform_(
        -50, 50, generator=torch.Generator().manual_seed(0)
    )
    s, c = torch.sin(z), torch.cos(z)
    r = 1 / math.sqrt(2)
    sin_ok = (c.abs() >= r - 1e-12) & (s.abs() <= r + 1e-12)  # branch sin: f' = cos, f'' = -sin
    cos_ok = (s.abs() >= r - 1e-12) & (c.abs() <= r + 1e-12)  # branch cos: f' = -sin, f'' = -cos
    assert bool((sin_ok | cos_ok).all())
    assert not bool(((s.abs() >= r) & (c.abs() < 0.1)).logical_not().all())  # sine alone fails at its peaks


def _worst_linear_residual(branches, centres):
    """max over centres of min over branches of the largest residual of the least-squares line on
    400 points of [z - pi/4, z + pi/4]."""
    t = np.linspace(-np.pi / 4, np.pi / 4, 400)
    A = np.stack([np.ones_like(t), t], axis=1)
    proj = A @ np.linalg.pinv(A)  # projector onto lines
    worst = 0.0
    for z in centres:
        res = [np.abs(f(z + t) - proj @ f(z + t)).max() for f in branches]
        worst = max(worst, min(res))
    return worst


def test_one_branch_is_nearly_linear_on_every_quarter_period_window():
    centres = np.linspace(0, 2 * np.pi, 241)
    both = _worst_linear_residual([np.sin, np.cos], centres)
    sine = _worst_linear_residual([np.sin], centres)
    assert both < sine  # the cosine partner is what makes every window near-linear
    assert both <= 0.16 and sine > 0.19  # spec: ~0.158 for the pair, ~0.195 for sine alone (at its peaks)
    # the worst window for the pair sits midway between the branches' linear regions (z = pi/4 + k pi/2)
    assert _worst_linear_residual([np.sin, np.cos], [np.pi / 4]) == pytest.approx(both, rel=1e-3)


def _directional_check(module, x):
    """u . J v by autograd against a central finite difference, for the input and every parameter."""
    g = torch.Generator().manual_seed(1)
    leaves = [x, *module.parameters()]
    vs = [torch.randn(t.shape, generator=g, dtype=torch.float64) for t in leaves]
    out = module(x)
    u = torch.randn(out.shape, generator=g, dtype=torch.float64)
    grads = torch.autograd.grad((out * u).sum(), leaves)
    analytic = sum((gr * v).sum() for gr, v in zip(grads, vs, strict=True))
    h = 1e-6
    with torch.no_grad():
        for t, v in zip(leaves, vs, strict=True):
            t.add_(h * v)
        up = (module(x) * u).sum()
        for t, v in zip(leaves, vs, strict=True):
            t.sub_(2 * h * v)
        down = (module(x) * u).sum()
        for t, v in zip(leaves, vs, strict=True):
            t.add_(h * v)
    assert float(analytic) == pytest.approx(float((up - down) / (2 * h)), rel=1e-6, abs=1e-8)


def test_finite_difference_gradients_of_linear_and_conv():
    torch.manual_seed(0)
    lin = DFFLinear(5, 6).double()
    _directional_check(lin, torch.randn(3, 5, dtype=torch.float64, requires_grad=True))
    conv = DFFConv2d(2, 4).double()
    x = torch.randn(2, 2, 4, 4, dtype=torch.float64, requires_grad=True)
    _directional_check(conv, x)
    assert conv(x).shape == (2, 4, 4, 4) and lin.linear.out_features == 3
    assert DFFLinear(5, 6, width_mode="match_units")(torch.zeros(1, 5)).shape == (1, 12)


def test_widths_and_bad_inputs():
    assert pre_activations(256) == 128 and pre_activations(7, "match_units") == 7
    with pytest.raises(ValueError, match="must be even"):
        pre_activations(7)
    with pytest.raises(ValueError, match="out_features"):
        DFFLinear(4, 5)
    with pytest.raises(ValueError, match="width_mode"):
        pre_activations(8, "match_params")
    with pytest.raises(ValueError, match="omega"):
        FourierActivation(omega=0.0)


def test_huge_and_non_finite_inputs():
    out = FourierActivation()(torch.tensor([[1e30, -1e30]]))
    assert torch.isfinite(out).all()
    nan = FourierActivation()(torch.tensor([[float("nan"), 0.0]]))
    assert torch.isnan(nan[0, 0]) and torch.isnan(nan[0, 2]) and nan[0, 1] == 0.0  # NaN propagates, unmasked
    with pytest.warns(UserWarning, match="half precision"):
        FourierActivation()(torch.tensor([[2e3]], dtype=torch.float16))
