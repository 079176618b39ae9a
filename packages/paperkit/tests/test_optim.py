"""paperkit.optim: Adam against a NumPy transcription, by hand and torch.optim.Adam; the plateau rule."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from paperkit.optim import Adam, ReduceOnPlateau


def numpy_adam(p, grads, lr, wd, b1=0.9, b2=0.999, eps=1e-8):
    m = v = np.zeros_like(p)
    for t, g in enumerate(grads, start=1):
        g = g + wd * p
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        p = p - lr * (m / (1 - b1**t)) / (np.sqrt(v) / math.sqrt(1 - b2**t) + eps)
    return p


@pytest.mark.parametrize("wd", [0.0, 0.3])
def test_adam_matches_a_numpy_transcription(wd):
    rng = np.random.default_rng(0)
    p0, grads = rng.standard_normal(6), [rng.standard_normal(6) for _ in range(5)]
    p = torch.tensor(p0, dtype=torch.float64, requires_grad=True)
    opt = Adam([p], lr=0.01, weight_decay=wd)
    for g in grads:
        p.grad = torch.tensor(g)
        opt.step()
    np.testing.assert_allclose(p.detach().numpy(), numpy_adam(p0, grads, 0.01, wd), rtol=1e-12)


def test_adam_first_steps_by_hand():
    """Step 1 moves by -lr g/(|g| + eps) (bias correction makes m_hat = g, v_hat = g^2); step 2 by hand."""
    w = torch.tensor([1.0, -2.0], dtype=torch.float64, requires_grad=True)
    opt = Adam([w], lr=0.1)
    g1, g2 = torch.tensor([0.5, -3.0], dtype=torch.float64), torch.tensor([-1.0, 2.0], dtype=torch.float64)
    w.grad = g1.clone()
    opt.step()
    expected = torch.tensor([1.0, -2.0], dtype=torch.float64) - 0.1 * g1 / (g1.abs() + 1e-8)
    assert torch.allclose(w.detach(), expected, rtol=1e-12, atol=0)
    w.grad = g2.clone()
    before = w.detach().clone()
    opt.step()
    m = 0.9 * 0.1 * g1 + 0.1 * g2
    v = 0.999 * 0.001 * g1**2 + 0.001 * g2**2
    step = 0.1 * (m / (1 - 0.9**2)) / ((v / (1 - 0.999**2)).sqrt() + 1e-8)
    assert torch.allclose(w.detach(), before - step, rtol=1e-12, atol=0)


def test_parameters_without_gradient_are_left_alone_and_zero_grad_clears():
    a = torch.ones(2, requires_grad=True)
    b = torch.ones(2, requires_grad=True)
    opt = Adam([a, b], lr=0.5)
    a.grad = torch.tensor([1.0, -1.0])
    opt.step()
    assert torch.equal(b.detach(), torch.ones(2)) and not torch.equal(a.detach(), torch.ones(2))
    opt.zero_grad()
    assert a.grad is None and b.grad is None


@pytest.mark.slow  # constructing torch.optim.Adam imports torch._dynamo (10-25 CPU-s without cached bytecode)
@pytest.mark.parametrize("wd", [0.0, 0.1])
def test_adam_is_torch_optim_adam_bit_for_bit(wd):
    torch.manual_seed(0)
    w1 = torch.randn(5, 3, requires_grad=True)
    w2 = w1.detach().clone().requires_grad_(True)
    ours, ref = (
        Adam([w1], lr=1e-2, weight_decay=wd),
        torch.optim.Adam([w2], lr=1e-2, weight_decay=wd, foreach=False),
    )
    x = torch.randn(8, 5)
    for _ in range(100):
        for w, o in ((w1, ours), (w2, ref)):
            o.zero_grad()
            (x @ w).sin().sum().backward()
            o.step()
    assert torch.equal(w1, w2)


def test_plateau_halves_lr_after_patience_calls_without_relative_improvement():
    opt = Adam([torch.zeros(1, requires_grad=True)], lr=1.0)
    sched = ReduceOnPlateau(opt, factor=0.5, patience=2, threshold=0.1)
    for value in (1.0, 0.95, 0.95, 0.95):  # 0.95 is not 10 % below 1.0: three bad calls > patience 2
        sched.step(value)
    assert opt.lr == 0.5
    sched.step(0.5)  # a real improvement resets the count
    assert sched.bad == 0 and opt.lr == 0.5


@pytest.mark.parametrize(
    ("kwargs", "error", "fragment"),
    [
        ({"lr": 0.0}, ValueError, "lr must be"),
        ({"lr": True}, TypeError, "lr must be"),
        ({"lr": float("nan")}, ValueError, "lr must be"),
        ({"weight_decay": -1.0}, ValueError, "weight_decay must be"),
        ({"betas": (0.9, 1.0)}, ValueError, "betas[1] must be"),
        ({"betas": (0.9,)}, ValueError, "betas must be a pair"),
        ({"betas": [0.9, 0.99]}, TypeError, "betas must be"),
        ({"eps": 0}, ValueError, "eps must be"),
    ],
)
def test_adam_bad_arguments_name_the_argument(kwargs, error, fragment):
    with pytest.raises(error, match=fragment.replace("[", r"\[").replace("]", r"\]")):
        Adam([torch.zeros(1, requires_grad=True)], **kwargs)


def test_adam_refuses_non_tensor_params_and_plateau_a_non_adam():
    with pytest.raises(TypeError, match=r"params\[1\] must be"):
        Adam([torch.zeros(1), 3.0])
    with pytest.raises(TypeError, match="opt must be"):
        ReduceOnPlateau(object())
    with pytest.raises(ValueError, match="factor must be"):
        ReduceOnPlateau(Adam([torch.zeros(1)]), factor=1.0)
