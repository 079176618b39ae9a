"""The shared method battery over the registry, and what distinguishes the baselines."""

from __future__ import annotations

import numpy as np
import pytest
from ntk_divergence.data import digits, synthetic_sphere
from ntk_divergence.methods import METHODS, kernel_gd, limiting_ntk, run_method
from shared_testing.battery import MethodBattery, MethodCase


def small_inputs():
    X, y = synthetic_sphere(6, 3, seed=4)
    return {"X": X, "y": y, "width": 16, "steps": 50, "n_checkpoints": 4}


def resnet_inputs():
    return small_inputs() | {"arch": "resnet", "lr": 0.25}


def softmax_inputs():
    X, y = digits(12, classes=(0, 1, 2), seed=0)
    return {"X": X, "y": y, "width": 16, "steps": 30, "n_checkpoints": 4, "lr": 0.5}


BAD = {"width": 0, "steps": 0, "lr": -1.0, "arch": "cnn", "depth": 0}


class TestMethods(MethodBattery):
    @classmethod
    def cases(cls):
        return [
            MethodCase(f"{name}{tag}", call=info.call, inputs=inputs, bad_inputs=BAD)
            for name, info in METHODS.items()
            for tag, inputs in (("", small_inputs), ("/resnet", resnet_inputs), ("/softmax", softmax_inputs))
        ]


def test_softmax_baselines_share_f0_and_kernel_ce_uses_theta_kron_identity():
    kw = softmax_inputs()
    ce, lin = run_method("network-ce", seed=1, **kw), run_method("linearised-ce", seed=1, **kw)
    kern = run_method("kernel-ce", seed=1, **kw)
    assert ce.outputs.shape == (len(ce.steps), 12, 3) and ce.outputs[0] == pytest.approx(lin.outputs[0])
    assert ce.lambda_min[0] == pytest.approx(lin.lambda_min[0])
    theta = limiting_ntk(kw["X"])
    assert kern.lambda_min[0] == pytest.approx(np.linalg.eigvalsh(theta)[0])


def test_same_seed_shares_theta0_across_methods():
    kw = small_inputs()
    ce, mse = run_method("network-ce", seed=3, **kw), run_method("network-mse", seed=3, **kw)
    lin = run_method("linearised-ce", seed=3, **kw)
    assert ce.outputs[0] == pytest.approx(mse.outputs[0]) and ce.outputs[0] == pytest.approx(lin.outputs[0])
    assert ce.lambda_min[0] == pytest.approx(lin.lambda_min[0])


def test_kernel_gd_distance_is_the_linearised_parameter_distance():
    """For f_lin = J theta, GD moves theta by -eta J^T g each step, so ||theta - theta_0||^2 = a^T K a."""
    rng = np.random.default_rng(0)
    J = rng.standard_normal((5, 30))
    y = np.sign(rng.standard_normal(5))
    theta = np.zeros(30)
    for _ in range(40):
        g = -y / (1 + np.exp(y * (J @ theta))) / 5
        theta -= 0.3 * J.T @ g
    _, outs, dist = kernel_gd(J @ J.T, np.zeros(5), y, loss="ce", lr=0.3, steps=40, n_checkpoints=3)
    assert outs[-1] == pytest.approx(J @ theta) and dist[-1] == pytest.approx(np.linalg.norm(theta))


def test_unknown_method_lists_the_registry():
    with pytest.raises(ValueError, match="network-ce"):
        run_method("svm", *synthetic_sphere(4, 2, seed=0), width=4, steps=2, seed=0)
