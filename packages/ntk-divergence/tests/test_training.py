"""GD: hand-written backprop vs autograd, the kernel-dynamics identity, and what CE and MSE do to the loss."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from ntk_divergence.data import synthetic_sphere
from ntk_divergence.kernels import fc_ntk
from ntk_divergence.models import FCN
from ntk_divergence.training import fcn_loss_grad, fcn_ntk_gram, log_checkpoints, loss_value, train_gd


def setup(m=32, depth=1, seed=0, activation="relu"):
    X, y = synthetic_sphere(10, 4, seed=seed)
    model = FCN(4, m, depth, activation=activation, generator=torch.Generator().manual_seed(seed))
    return model, X, y


@pytest.mark.parametrize("loss", ["ce", "mse"])
@pytest.mark.parametrize(("depth", "activation"), [(1, "relu"), (2, "relu"), (2, "erf")])
def test_manual_gradients_equal_autograd(loss, depth, activation):
    model, X, y = setup(depth=depth, activation=activation)
    params = {k: v.detach().numpy().copy() for k, v in model.named_parameters()}
    value, _, grads = fcn_loss_grad(params, model, X, y, loss)
    out = loss_value(model(torch.as_tensor(X)), torch.as_tensor(y), loss)
    auto = torch.autograd.grad(out, list(model.parameters()))
    assert value == pytest.approx(float(out.detach()), rel=1e-12)
    for (name, _), g in zip(model.named_parameters(), auto, strict=True):
        assert grads[name] == pytest.approx(g.numpy(), rel=1e-9, abs=1e-14)


def test_one_step_follows_kernel_dynamics():
    """f_{t+1} - f_t = -eta K_t grad_f L + O(eta^2)."""
    model, X, y = setup(m=64)
    params = {k: v.detach().numpy().copy() for k, v in model.named_parameters()}
    K = fcn_ntk_gram(params, model, X)
    _, f0, grads = fcn_loss_grad(params, model, X, y, "ce")
    g_f = -y / (1 + np.exp(y * f0)) / len(y)
    errs = []
    for eta in (1e-2, 1e-3):
        moved = {k: v - eta * grads[k] for k, v in params.items()}
        _, f1, _ = fcn_loss_grad(moved, model, X, y, "ce")
        errs.append(np.abs(f1 - f0 + eta * K @ g_f).max())
    assert errs[1] < errs[0] / 50  # second order: 10x smaller step, ~100x smaller error


def test_ce_loss_decreases_and_mse_converges_with_bounded_params():
    model, X, y = setup(m=64)
    Xt, yt = torch.as_tensor(X), torch.as_tensor(y)
    theta, _ = fc_ntk(X)
    ce = train_gd(model, Xt, yt, loss="ce", lr=1.0, steps=4000, n_checkpoints=10, theta=theta)
    assert np.all(np.diff(ce.loss) < 0) and ce.n_loss_increases == 0
    assert ce.min_margin[-1] > 0 and np.all(np.diff(ce.param_dist[1:]) > 0)
    model2, _, _ = setup(m=64)
    mse = train_gd(model2, Xt, yt, loss="mse", lr=1.0, steps=4000, n_checkpoints=10, theta=theta)
    assert mse.loss[-1] < 1e-2 * mse.loss[0] and mse.param_dist[-1] < ce.param_dist[-1]
    grow = lambda tr: tr.param_dist[-1] / tr.param_dist[len(tr.steps) // 2] - 1  # noqa: E731
    assert 0 <= grow(mse) < 0.5 * grow(ce)  # MSE settles while CE keeps moving
    assert mse.kernel_change[0] == 0 and mse.steps[0] == 0 and mse.steps[-1] == 4000


def test_log_checkpoints_and_bad_inputs():
    marks = log_checkpoints(1000, 10)
    assert marks[0] == 0 and marks[-1] == 1000 and np.all(np.diff(marks) > 0)
    model, X, y = setup()
    Xt, yt = torch.as_tensor(X), torch.as_tensor(y)
    with pytest.raises(ValueError, match=r"loss.*ce.*mse"):
        train_gd(model, Xt, yt, loss="hinge")
    with pytest.raises(ValueError, match="lr"):
        train_gd(model, Xt, yt, lr=0.0)
    with pytest.raises(ValueError, match="steps"):
        train_gd(model, Xt, yt, steps=0)
    with pytest.raises(TypeError, match="model"):
        train_gd(torch.nn.Linear(4, 1), Xt, yt)
