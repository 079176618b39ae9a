"""Hostile input at every public entry point: each raises TypeError/ValueError naming the argument."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from compositional_dnn import (
    MLP,
    AccNet,
    Composition,
    DeepMLP,
    ShallowNet,
    decay_exponent,
    exponents_over_seeds,
    make_composition,
    matern,
    matern_kernel,
    matern_krr,
    rms_distance,
    run_method,
    sample_gp,
    train_staged,
)

NAN = float("nan")
X = np.random.default_rng(0).standard_normal((12, 3))
Y = np.random.default_rng(1).standard_normal((12, 2))
XT, YT = X[:4], Y[:4]
RNG = np.random.default_rng(2)
STAGES = ((1e-3, 0.0, 1),)
GPU = "cuda" if not torch.cuda.is_available() else "cuda:99"


def _comp() -> Composition:
    return Composition(X, X[:, :2], Y, 0.5, math.inf, 0.0, 0.0)


def _net() -> MLP:
    return MLP([3, 4, 2])


def _tx(a: np.ndarray = X) -> torch.Tensor:
    return torch.as_tensor(a, dtype=torch.float32)


def _net_call(method: str, **kw: object):
    base: dict[str, object] = {"seed": 0, "stages": STAGES}
    base.update(kw)
    data = {k: base.pop(k) for k in ("X_train", "Y_train", "X_test", "Y_test") if k in base}
    args = (data.get("X_train", X), data.get("Y_train", Y), data.get("X_test", XT), data.get("Y_test", YT))
    return lambda: run_method(method, *args, **base)


CASES = [
    # kernels
    ("rms_distance str", lambda: rms_distance([["a", "b"]]), TypeError, "X"),
    ("rms_distance 1-D", lambda: rms_distance(np.zeros(3)), ValueError, "X"),
    ("rms_distance NaN", lambda: rms_distance(np.array([[NAN, 0.0]])), ValueError, "X"),
    ("rms_distance empty", lambda: rms_distance(np.zeros((0, 3))), ValueError, "X"),
    ("rms_distance no columns", lambda: rms_distance(np.zeros((3, 0))), ValueError, "X"),
    ("rms_distance bool", lambda: rms_distance(np.ones((2, 2), bool)), TypeError, "X"),
    ("rms_distance X2 shape", lambda: rms_distance(X, np.zeros((2, 4))), ValueError, "X2"),
    ("rms_distance X2 inf", lambda: rms_distance(X, np.full((2, 3), np.inf)), ValueError, "X2"),
    ("rms_distance X2 empty", lambda: rms_distance(X, np.zeros((0, 3))), ValueError, "X2"),
    ("matern nu str", lambda: matern(np.ones(2), "0.5"), TypeError, "nu"),
    ("matern nu bool", lambda: matern(np.ones(2), True), TypeError, "nu"),
    ("matern nu zero", lambda: matern(np.ones(2), 0.0), ValueError, "nu"),
    ("matern nu negative", lambda: matern(np.ones(2), -1.5), ValueError, "nu"),
    ("matern nu NaN", lambda: matern(np.ones(2), NAN), ValueError, "nu"),
    ("matern r negative", lambda: matern(np.array([-1.0]), 0.5), ValueError, "r"),
    ("matern r NaN", lambda: matern(np.array([NAN]), 0.5), ValueError, "r"),
    ("matern r str", lambda: matern("far", 0.5), TypeError, "r"),
    ("matern_kernel nu -inf", lambda: matern_kernel(X, -math.inf), ValueError, "nu"),
    ("matern_kernel X NaN", lambda: matern_kernel(np.full((2, 2), NAN), 0.5), ValueError, "X"),
    ("matern_kernel X2 shape", lambda: matern_kernel(X, 0.5, np.zeros((2, 1))), ValueError, "X2"),
    ("sample_gp rng seed", lambda: sample_gp(X, 0.5, 2, 0), TypeError, "rng"),
    ("sample_gp n_out zero", lambda: sample_gp(X, 0.5, 0, RNG), ValueError, "n_out"),
    ("sample_gp n_out bool", lambda: sample_gp(X, 0.5, True, RNG), TypeError, "n_out"),
    ("sample_gp n_out float", lambda: sample_gp(X, 0.5, 2.0, RNG), TypeError, "n_out"),
    ("sample_gp nu zero", lambda: sample_gp(X, 0, 2, RNG), ValueError, "nu"),
    ("sample_gp X empty", lambda: sample_gp(np.zeros((0, 3)), 0.5, 2, RNG), ValueError, "X"),
    # data
    ("make_composition n_total < d_in", lambda: make_composition(10, nu_g=1.5, nu_h=1.5, seed=0), ValueError,
     "n_total"),
    ("make_composition n_total bool", lambda: make_composition(True, nu_g=1.5, nu_h=1.5, seed=0), TypeError,
     "n_total"),
    ("make_composition d_in zero", lambda: make_composition(20, nu_g=1.5, nu_h=1.5, d_in=0, seed=0),
     ValueError, "d_in"),
    ("make_composition d_mid negative", lambda: make_composition(20, nu_g=1.5, nu_h=1.5, d_mid=-1, seed=0),
     ValueError, "d_mid"),
    ("make_composition d_out float", lambda: make_composition(20, nu_g=1.5, nu_h=1.5, d_out=2.0, seed=0),
     TypeError, "d_out"),
    ("make_composition nu_g 0", lambda: make_composition(20, nu_g=0, nu_h=1.5, seed=0), ValueError, "nu_g"),
    ("make_composition nu_h NaN", lambda: make_composition(20, nu_g=1.5, nu_h=NAN, seed=0), ValueError,
     "nu_h"),
    ("make_composition nu_h str", lambda: make_composition(20, nu_g=1.5, nu_h="inf", seed=0), TypeError,
     "nu_h"),
    ("make_composition seed negative", lambda: make_composition(20, nu_g=1.5, nu_h=1.5, seed=-1), ValueError,
     "seed"),
    ("make_composition seed float", lambda: make_composition(20, nu_g=1.5, nu_h=1.5, seed=0.5), TypeError,
     "seed"),
    ("Composition Y rows", lambda: Composition(X, X, Y[:5], 0.5, 0.5, 0.0, 0.0), ValueError, "Y"),
    ("Composition Z NaN", lambda: Composition(X, np.full((12, 1), NAN), Y, 0.5, 0.5, 0.0, 0.0), ValueError,
     "Z"),
    ("Composition nu_g negative", lambda: Composition(X, X, Y, -0.5, 0.5, 0.0, 0.0), ValueError, "nu_g"),
    ("Composition jitter < 0", lambda: Composition(X, X, Y, 0.5, 0.5, -1.0, 0.0), ValueError, "jitter_g"),
    ("Composition.train N < d_in", lambda: _comp().train(2), ValueError, "n_train"),
    ("Composition.train too many", lambda: _comp().train(13), ValueError, "n_train"),
    ("Composition.train bool", lambda: _comp().train(True), TypeError, "n_train"),
    ("Composition.test zero", lambda: _comp().test(0), ValueError, "n_test"),
    ("Composition.test float", lambda: _comp().test(2.0), TypeError, "n_test"),
    # models
    ("MLP widths int", lambda: MLP(5), TypeError, "widths"),
    ("MLP widths short", lambda: MLP([3]), ValueError, "widths"),
    ("MLP widths zero", lambda: MLP([3, 0, 2]), ValueError, "widths[1]"),
    ("MLP widths bool", lambda: MLP([3, True, 2]), TypeError, "widths[1]"),
    ("MLP device unknown", lambda: MLP([3, 2], device="gpu0"), ValueError, "device"),
    ("MLP device type", lambda: MLP([3, 2], device=0), TypeError, "device"),
    ("MLP device without GPU", lambda: MLP([3, 2], device=GPU), ValueError, "device"),
    ("MLP generator type", lambda: MLP([3, 2], generator=0), TypeError, "generator"),
    ("MLP.complexity shape", lambda: MLP([3, 4, 2]).complexity(_tx(Y)), ValueError, "X_train"),
    ("MLP.complexity empty", lambda: MLP([3, 4, 2]).complexity(_tx(X[:0])), ValueError, "X_train"),
    ("MLP.complexity NaN", lambda: MLP([3, 4, 2]).complexity(_tx(X * NAN)), ValueError, "X_train"),
    ("MLP.f1_norm_proxy int", lambda: _net().f1_norm_proxy(include_bias=1), TypeError, "include_bias"),
    ("AccNet d_in zero", lambda: AccNet(0, 2, wide=4, narrow=2, n_blocks=2), ValueError, "d_in"),
    ("AccNet wide bool", lambda: AccNet(3, 2, wide=True, narrow=2, n_blocks=2), TypeError, "wide"),
    ("AccNet narrow negative", lambda: AccNet(3, 2, wide=4, narrow=-2, n_blocks=2), ValueError, "narrow"),
    ("AccNet n_blocks zero", lambda: AccNet(3, 2, wide=4, narrow=2, n_blocks=0), ValueError, "n_blocks"),
    ("AccNet device", lambda: AccNet(3, 2, wide=4, narrow=2, n_blocks=2, device="tpu"), ValueError, "device"),
    ("ShallowNet width float", lambda: ShallowNet(3, 2, width=4.0), TypeError, "width"),
    ("ShallowNet d_out zero", lambda: ShallowNet(3, 0, width=4), ValueError, "d_out"),
    ("DeepMLP depth zero", lambda: DeepMLP(3, 2, width=4, depth=0), ValueError, "depth"),
    ("DeepMLP width negative", lambda: DeepMLP(3, 2, width=-4, depth=2), ValueError, "width"),
    # training
    ("train_staged model", lambda: train_staged("net", _tx(), _tx(Y), stages=STAGES), TypeError, "model"),
    ("train_staged X numpy", lambda: train_staged(_net(), X, _tx(Y), stages=STAGES), TypeError, "X"),
    ("train_staged X int", lambda: train_staged(_net(), torch.ones(4, 3, dtype=torch.long), _tx(Y[:4]),
                                                stages=STAGES), TypeError, "X"),
    ("train_staged NaN", lambda: train_staged(_net(), _tx(X * NAN), _tx(Y), stages=STAGES), ValueError, "X"),
    ("train_staged X empty", lambda: train_staged(_net(), _tx(X[:0]), _tx(Y[:0]), stages=STAGES), ValueError,
     "X"),
    ("train_staged X width", lambda: train_staged(_net(), _tx(Y), _tx(Y), stages=STAGES), ValueError, "X"),
    ("train_staged Y rows", lambda: train_staged(_net(), _tx(), _tx(Y[:5]), stages=STAGES), ValueError, "Y"),
    ("train_staged stages str", lambda: train_staged(_net(), _tx(), _tx(Y), stages="adam"), TypeError,
     "stages"),
    ("train_staged no stages", lambda: train_staged(_net(), _tx(), _tx(Y), stages=[]), ValueError, "stages"),
    ("train_staged stage pair", lambda: train_staged(_net(), _tx(), _tx(Y), stages=[(1e-3, 0.0)]), ValueError,
     "stages"),
    ("train_staged lr NaN", lambda: train_staged(_net(), _tx(), _tx(Y), stages=[(NAN, 0.0, 1)]), ValueError,
     "stages lr"),
    ("train_staged wd negative", lambda: train_staged(_net(), _tx(), _tx(Y), stages=[(1e-3, -1.0, 1)]),
     ValueError, "stages weight_decay"),
    ("train_staged epochs bool", lambda: train_staged(_net(), _tx(), _tx(Y), stages=[(1e-3, 0.0, True)]),
     TypeError, "stages epochs"),
    ("train_staged n_batches zero", lambda: train_staged(_net(), _tx(), _tx(Y), stages=STAGES, n_batches=0),
     ValueError, "n_batches"),
    ("train_staged n_batches > N", lambda: train_staged(_net(), _tx(), _tx(Y), stages=STAGES, n_batches=13),
     ValueError, "n_batches"),
    # methods
    ("run_method unknown", lambda: run_method("resnet", X, Y, XT, YT, seed=0), ValueError, "name"),
    ("run_method name type", lambda: run_method(3, X, Y, XT, YT, seed=0), TypeError, "name"),
    ("accnet N < d", _net_call("accnet", X_train=X[:2], Y_train=Y[:2]), ValueError, "X_train"),
    ("accnet X_train NaN", _net_call("accnet", X_train=X * NAN), ValueError, "X_train"),
    ("accnet X_train 1-D", _net_call("accnet", X_train=X[:, 0]), ValueError, "X_train"),
    ("accnet X_train no columns", _net_call("accnet", X_train=X[:, :0]), ValueError, "X_train"),
    ("accnet Y_train rows", _net_call("accnet", Y_train=Y[:5]), ValueError, "Y_train"),
    ("accnet Y_train no columns", _net_call("accnet", Y_train=Y[:, :0]), ValueError, "Y_train"),
    ("accnet X_test width", _net_call("accnet", X_test=Y[:4]), ValueError, "X_test"),
    ("accnet X_test empty", _net_call("accnet", X_test=XT[:0], Y_test=YT[:0]), ValueError, "X_test"),
    ("accnet Y_test inf", _net_call("accnet", Y_test=YT * np.inf), ValueError, "Y_test"),
    ("accnet seed negative", _net_call("accnet", seed=-1), ValueError, "seed"),
    ("accnet seed bool", _net_call("accnet", seed=True), TypeError, "seed"),
    ("accnet lr_scale zero", _net_call("accnet", lr_scale=0.0), ValueError, "lr_scale"),
    ("accnet wide zero", _net_call("accnet", wide=0), ValueError, "wide"),
    ("accnet n_batches zero", _net_call("accnet", n_batches=0), ValueError, "n_batches"),
    ("accnet device unknown", _net_call("accnet", device="gpu"), ValueError, "device"),
    ("accnet device without GPU", _net_call("accnet", device=GPU), ValueError, "device"),
    ("shallow width bool", _net_call("shallow", width=True), TypeError, "width"),
    ("shallow stages empty", _net_call("shallow", stages=()), ValueError, "stages"),
    ("deep depth zero", _net_call("deep", depth=0), ValueError, "depth"),
    ("deep lr_scale NaN", _net_call("deep", lr_scale=NAN), ValueError, "lr_scale"),
    ("krr ridge zero", lambda: run_method("krr", X, Y, XT, YT, ridge=0.0), ValueError, "ridge"),
    ("krr nu str", lambda: run_method("krr", X, Y, XT, YT, nu="0.5"), TypeError, "nu"),
    ("krr N < d", lambda: run_method("krr", X[:2], Y[:2], XT, YT), ValueError, "X_train"),
    ("matern_krr ridge negative", lambda: matern_krr(X, Y, XT, ridge=-1.0), ValueError, "ridge"),
    ("matern_krr ridge bool", lambda: matern_krr(X, Y, XT, ridge=True), TypeError, "ridge"),
    ("matern_krr Y_train rows", lambda: matern_krr(X, Y[:5], XT, ridge=1.0), ValueError, "Y_train"),
    ("matern_krr Y_train NaN", lambda: matern_krr(X, Y * NAN, XT, ridge=1.0), ValueError, "Y_train"),
    ("matern_krr X_test width", lambda: matern_krr(X, Y, YT, ridge=1.0), ValueError, "X_test"),
    ("matern_krr nu zero", lambda: matern_krr(X, Y, XT, nu=0.0, ridge=1.0), ValueError, "nu"),
    # analysis
    ("decay_exponent Ns 2-D", lambda: decay_exponent(np.ones((2, 2)), np.ones(2)), ValueError, "Ns"),
    ("decay_exponent one point", lambda: decay_exponent([10], [0.1]), ValueError, "Ns"),
    ("decay_exponent Ns zero", lambda: decay_exponent([0, 10], [0.1, 0.2]), ValueError, "Ns"),
    ("decay_exponent Ns equal", lambda: decay_exponent([10, 10], [0.1, 0.2]), ValueError, "Ns"),
    ("decay_exponent Ns str", lambda: decay_exponent(["a", "b"], [0.1, 0.2]), TypeError, "Ns"),
    ("decay_exponent errors length", lambda: decay_exponent([10, 20], [0.1]), ValueError, "errors"),
    ("decay_exponent errors negative", lambda: decay_exponent([10, 20], [0.1, -0.2]), ValueError, "errors"),
    ("decay_exponent errors NaN", lambda: decay_exponent([10, 20], [0.1, NAN]), ValueError, "errors"),
    ("exponents_over_seeds Ns int", lambda: exponents_over_seeds(5, np.ones((2, 2))), ValueError, "Ns"),
    ("exponents_over_seeds errors 1-D", lambda: exponents_over_seeds([10, 20], [0.1, 0.2]), ValueError,
     "errors"),
    ("exponents_over_seeds errors empty", lambda: exponents_over_seeds([10, 20], np.ones((0, 2))), ValueError,
     "errors"),
    ("exponents_over_seeds errors zero", lambda: exponents_over_seeds([10, 20], np.zeros((2, 2))), ValueError,
     "errors"),
]  # fmt: skip


@pytest.mark.parametrize(("call", "error", "fragment"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_is_refused_naming_the_argument(call, error, fragment):
    with pytest.raises(error) as info:
        call()
    assert type(info.value) is error or issubclass(type(info.value), error)
    assert fragment in str(info.value), str(info.value)


def test_vectorised_exponents_match_one_fit_per_row():
    Ns = np.array([100, 200, 400, 800])
    errors = np.exp(np.random.default_rng(3).normal(size=(5, 4))) * Ns ** -np.linspace(0.1, 0.9, 5)[:, None]
    per_row = [decay_exponent(Ns, row)[0] for row in errors]
    np.testing.assert_allclose(exponents_over_seeds(Ns, errors), per_row, rtol=1e-12)
