"""GD: hand-written backprop vs autograd, the kernel-dynamics identity, and what CE and MSE do to the loss."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from ntk_divergence.backprop import ntk_gram, numpy_params
from ntk_divergence.data import digits, load_digits_file, synthetic_sphere
from ntk_divergence.kernels import fc_ntk, resnet_ntk
from ntk_divergence.models import FCN, ResNet
from ntk_divergence.training import log_checkpoints, loss_grad, margins, output_loss, train_gd
from torch.nn.functional import cross_entropy, one_hot, softplus


def setup(m=32, depth=1, seed=0, activation="relu"):
    X, y = synthetic_sphere(10, 4, seed=seed)
    model = FCN(4, m, depth, activation=activation, generator=torch.Generator().manual_seed(seed))
    return model, X, y


def torch_loss(out, y, loss):
    """The losses written with torch's own functions (the oracle for the hand-written ones)."""
    if out.ndim == 1:
        return softplus(-y * out).mean() if loss == "ce" else 0.5 * ((out - y) ** 2).mean()
    if loss == "ce":
        return cross_entropy(out, y.long())
    return 0.5 * ((out - one_hot(y.long(), out.shape[1]).double()) ** 2).sum(1).mean()


def gen(seed):
    return torch.Generator().manual_seed(seed)


MODELS = {
    "fcn-1": lambda: FCN(4, 32, 1, generator=gen(0)),
    "fcn-2": lambda: FCN(4, 32, 2, generator=gen(0)),
    "fcn-2-erf": lambda: FCN(4, 32, 2, activation="erf", generator=gen(0)),
    "fcn-3class": lambda: FCN(4, 32, 2, out_dim=3, generator=gen(1)),
    "resnet-2": lambda: ResNet(4, 32, 2, alpha=0.8, generator=gen(2)),
    "resnet-3class-erf": lambda: ResNet(4, 32, 1, activation="erf", out_dim=3, generator=gen(3)),
}


@pytest.mark.parametrize("loss", ["ce", "mse"])
@pytest.mark.parametrize("name", list(MODELS))
def test_manual_gradients_equal_autograd(loss, name):
    model = MODELS[name]()
    X, y = synthetic_sphere(10, 4, seed=0)
    y = y if model.out_dim == 1 else np.arange(10) % model.out_dim
    value, _, grads = loss_grad(numpy_params(model), model, X, y, loss)
    out = torch_loss(model(torch.as_tensor(X)), torch.as_tensor(y, dtype=torch.float64), loss)
    auto = torch.autograd.grad(out, list(model.parameters()))
    assert value == pytest.approx(float(out.detach()), rel=1e-12)
    for (pname, _), g in zip(model.named_parameters(), auto, strict=True):
        assert grads[pname] == pytest.approx(g.numpy(), rel=1e-9, abs=1e-14)


def test_margins_and_output_loss_closed_forms():
    f = np.array([[2.0, 0.5, -1.0], [0.0, 3.0, 1.0]])
    assert margins(f, np.array([0, 2])) == pytest.approx([1.5, -2.0])
    assert margins(np.array([[1.5], [-0.5]]), np.array([1.0, 1.0])) == pytest.approx([1.5, -0.5])
    value, g = output_loss(f, np.array([0, 2]), "ce")
    lse = np.log(np.exp(f).sum(axis=1))
    assert value == pytest.approx(np.mean(lse - [2.0, 1.0]))
    assert g.sum(axis=1) == pytest.approx([0.0, 0.0])  # softmax minus one-hot sums to zero
    big, _ = output_loss(np.array([[800.0], [-800.0]]), np.array([1.0, -1.0]), "ce")
    assert big == pytest.approx(0.0, abs=1e-300)  # no overflow at large margins


@pytest.mark.parametrize("name", ["fcn-3class", "resnet-2"])
def test_one_step_follows_kernel_dynamics(name):
    """f_{t+1} - f_t = -eta K_t grad_f L + O(eta^2), K_t the (K n, K n) Gram (class-major)."""
    model = MODELS[name]()
    X, y = synthetic_sphere(10, 4, seed=0)
    y = y if model.out_dim == 1 else np.arange(10) % model.out_dim
    params = numpy_params(model)
    K = ntk_gram(params, model, X)
    _, f0, grads = loss_grad(params, model, X, y, "ce")
    g_f = output_loss(f0, y, "ce")[1].T.reshape(-1)
    errs = []
    for eta in (1e-2, 1e-3):
        _, f1, _ = loss_grad({k: v - eta * grads[k] for k, v in params.items()}, model, X, y, "ce")
        errs.append(np.abs((f1 - f0).T.reshape(-1) + eta * K @ g_f).max())
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


def test_softmax_ce_on_digits_separates_and_resnet_ce_trains():
    X, y = digits(30, classes=(0, 1, 2), seed=0)
    model = FCN(64, 64, 1, out_dim=3, generator=gen(0))
    theta, _ = fc_ntk(X)
    tr = train_gd(model, torch.as_tensor(X), torch.as_tensor(y), loss="ce", lr=0.5, steps=600,
                  n_checkpoints=6, theta=theta)  # fmt: skip
    assert np.all(np.diff(tr.loss) < 0) and tr.min_margin[-1] > 0 and tr.outputs.shape == (7, 30, 3)
    assert np.isfinite(tr.kernel_dev).all() and tr.lambda_min[0] > 0
    Xs, ys = synthetic_sphere(10, 4, seed=1)
    res = ResNet(4, 32, 1, generator=gen(0))
    rt = train_gd(res, torch.as_tensor(Xs), torch.as_tensor(ys), loss="ce", lr=0.25, steps=600,
                  n_checkpoints=6, theta=resnet_ntk(Xs)[0])  # fmt: skip
    assert np.all(np.diff(rt.loss) < 0) and rt.n_loss_increases == 0 and rt.min_margin[-1] > 0


def test_digits_loader_offline_classes_and_shapes():
    X, y = digits(40, seed=0)
    assert X.shape == (40, 64) and set(y) == {-1.0, 1.0} and (y == 1).sum() == 20
    assert np.linalg.norm(X, axis=1) == pytest.approx(np.ones(40))
    X10, y10 = digits(100, classes=tuple(range(10)), seed=1)
    assert X10.shape == (100, 64) and np.bincount(y10.astype(int)).tolist() == [10] * 10
    assert len(np.unique(X10.round(12), axis=0)) == 100  # distinct images: strict PD applies
    with pytest.raises(ValueError, match="multiple of len"):
        digits(7, seed=0)
    with pytest.raises(ValueError, match="classes"):
        digits(4, classes=(1, 1), seed=0)


@pytest.mark.slow
def test_digits_file_equals_sklearn_load_digits():
    from sklearn.datasets import load_digits

    pixels, target = load_digits_file()
    ref = load_digits()
    assert np.array_equal(pixels, ref.data) and np.array_equal(target, ref.target)


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
    with pytest.raises(ValueError, match=r"y must hold labels in \{-1, \+1\}"):
        train_gd(model, Xt, torch.zeros(10, dtype=torch.float64))
    multi = FCN(4, 8, out_dim=3)
    with pytest.raises(ValueError, match=r"class labels in 0 \.\. 2"):
        train_gd(multi, Xt, torch.full((10,), 3.0, dtype=torch.float64))
