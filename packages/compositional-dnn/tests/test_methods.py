"""The shared method battery over the registry, KRR against scikit-learn, and the registry's specifics."""

from __future__ import annotations

import math

import numpy as np
import pytest
from compositional_dnn.data import make_composition
from compositional_dnn.methods import METHODS, matern_krr, run_method
from shared_testing.battery import MethodBattery, MethodCase

COMP = make_composition(60, nu_g=math.inf, nu_h=0.5, seed=0)
SMALL_NET = {
    "accnet": {"wide": 16, "narrow": 4, "n_blocks": 2},
    "shallow": {"width": 16},
    "deep": {"width": 8, "depth": 3},
    "krr": {},
}
STAGES = ((1e-3, 0.0, 2), (3e-4, 1e-4, 1), (1e-4, 2e-4, 1))


def small_inputs(name):
    def make():
        X, _, Y = COMP.train(40)
        Xt, _, Yt = COMP.test(20)
        kw = {"X_train": X.copy(), "Y_train": Y.copy(), "X_test": Xt.copy(), "Y_test": Yt.copy()}
        if METHODS[name].kind == "network":
            kw.update(stages=STAGES, n_batches=2, **SMALL_NET[name])
        return kw

    return make


def bad(name):
    out = {"X_train": np.zeros((10, 15)), "Y_test": np.zeros((3, 20))}  # N < d_in; Y_test rows != X_test rows
    network = METHODS[name].kind == "network"
    out.update({"lr_scale": -1.0, "stages": ((1e-3, 0.0, 0),)} if network else {"ridge": 0.0})
    return out


class TestMethods(MethodBattery):
    @classmethod
    def cases(cls):
        return [
            MethodCase(
                name,
                call=info.call,
                inputs=small_inputs(name),
                bad_inputs=bad(name),
                seed_arg="seed" if info.kind == "network" else None,
                device_arg="device" if info.kind == "network" else None,
            )
            for name, info in METHODS.items()
        ]


@pytest.mark.slow  # the sklearn.gaussian_process import (~3 CPU-s)
def test_krr_matches_sklearn_kernel_ridge():
    kr = pytest.importorskip("sklearn.kernel_ridge")
    sk = pytest.importorskip("sklearn.gaussian_process.kernels")
    X, _, Y = COMP.train(40)
    Xt, _, _ = COMP.test(20)
    kernel = sk.Matern(length_scale=math.sqrt(15), nu=1.5)
    ref = kr.KernelRidge(alpha=0.05, kernel=kernel).fit(X, Y).predict(Xt)
    np.testing.assert_allclose(matern_krr(X, Y, Xt, nu=1.5, ridge=0.05), ref, atol=1e-8)


def test_krr_on_the_true_z_beats_krr_on_x_when_h_is_learnable():
    """The oracle-g baseline: h is a 3-D function, g(X) is a 15-D one (smooth h makes this clear)."""
    comp = make_composition(400, nu_g=0.5, nu_h=math.inf, seed=1)
    X, Z, Y = comp.train(300)
    Xt, Zt, Yt = comp.test(100)
    on_x = run_method("krr", X, Y, Xt, Yt, ridge=1e-2)
    on_z = run_method("krr", Z, Y, Zt, Yt, ridge=1e-2, nu=2.5)
    assert on_z.test_mse < 0.5 * on_x.test_mse


def test_networks_report_their_complexity_and_krr_none():
    for name in ("accnet", "shallow"):
        f = METHODS[name].call(**small_inputs(name)(), seed=0)
        assert f.complexity is not None and f.complexity > 0
    assert METHODS["krr"].call(**small_inputs("krr")()).complexity is None


def test_every_method_declares_a_grid_of_five():
    assert all(len(info.grid) == 5 for info in METHODS.values())


def test_unknown_method_lists_the_registry():
    with pytest.raises(ValueError, match="accnet"):
        run_method("svm")
