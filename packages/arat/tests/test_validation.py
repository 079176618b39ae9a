"""Bad input at every public entry point (arat.__all__): TypeError for a wrong type, ValueError for a wrong
value, each with a message naming the argument."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

import arat
import paperkit
import pytest
import torch
from torch import nn

MODEL = arat.backbone(channels=(4, 4, 4, 4), seed=0)
PLAIN = arat.backbone(channels=(4, 4, 4, 4), split_bn=False, seed=0)
X = torch.rand(4, 1, 8, 8, generator=torch.Generator().manual_seed(0))
Y = torch.tensor([0, 1, 2, 3])
META = torch.zeros(4, 1, 8, 8, device="meta")
U = torch.randn(4, 3)
CFG = arat.TrainConfig(epochs=1, eps=0.3)
LAYERS = arat.default_layers(MODEL)


def _tapped(**kw: Any) -> Any:
    return arat.tapped_forward(**{"model": MODEL, "x": X, "layers": LAYERS, **kw})


def _pgd(**kw: Any) -> Any:
    return arat.pgd(**{"model": MODEL, "x": X, "y": Y, "eps": 0.3, "steps": 1, **kw})


def _apgd(**kw: Any) -> Any:
    return arat.apgd_ce(**{"model": MODEL, "x": X, "y": Y, "eps": 0.3, "steps": 1, **kw})


def _train(**kw: Any) -> Any:
    return arat.train(**{"model": arat.backbone(channels=(4, 4, 4, 4)), "x": X, "y": Y, "config": CFG, **kw})


def _robust(**kw: Any) -> Any:
    cfg = arat.EvalConfig(eps=0.3, steps=1, restarts=1, apgd_steps=1)
    return arat.robust_accuracy(**{"model": MODEL, "x": X, "y": Y, "config": cfg, **kw})


def _conflict(**kw: Any) -> Any:
    return arat.gradient_conflict(
        **{"model": PLAIN, "x": X, "y": Y, "layers": arat.default_layers(PLAIN), "eps": 0.3, "steps": 1, **kw}
    )


def _fit(**kw: Any) -> Any:
    return arat.fit(**{"name": "st", "x": X, "y": Y, "channels": (4, 4, 4, 4), "epochs": 1, **kw})


def _use_branch(model: Any, branch: Any) -> None:
    with arat.use_branch(model, branch):
        pass


CASES: list[tuple[str, Callable[[], Any], type[Exception], str]] = [
    # layers
    ("SplitBatchNorm2d-bn", lambda: arat.SplitBatchNorm2d(nn.Linear(2, 2)), TypeError, "bn"),
    (
        "SplitBatchNorm2d-branches",
        lambda: arat.SplitBatchNorm2d(nn.BatchNorm2d(2), ("a", "a")),
        ValueError,
        "branches",
    ),
    (
        "SplitBatchNorm2d-branches-str",
        lambda: arat.SplitBatchNorm2d(nn.BatchNorm2d(2), "ab"),
        TypeError,
        "branches",
    ),
    ("split_batchnorm-model", lambda: arat.split_batchnorm("net"), TypeError, "model"),
    ("split_batchnorm-nobn", lambda: arat.split_batchnorm(nn.Linear(2, 2)), ValueError, "BatchNorm2d"),
    ("split_batchnorm-branches", lambda: arat.split_batchnorm(PLAIN, ("adv",)), ValueError, "branches"),
    ("set_branch-unknown", lambda: arat.set_branch(MODEL, "robust"), ValueError, "branch"),
    ("set_branch-unknown-plain", lambda: arat.set_branch(PLAIN, "robust"), ValueError, "branch"),
    ("set_branch-type", lambda: arat.set_branch(MODEL, 0), TypeError, "branch"),
    ("set_branch-model", lambda: arat.set_branch(None, "adv"), TypeError, "model"),
    ("use_branch-unknown", lambda: _use_branch(PLAIN, "clen"), ValueError, "branch"),
    ("branch_of-model", lambda: arat.branch_of([1]), TypeError, "model"),
    ("has_split_bn-model", lambda: arat.has_split_bn(3), TypeError, "model"),
    # features
    ("tapped_forward-model", lambda: _tapped(model="m"), TypeError, "model"),
    ("tapped_forward-x-type", lambda: _tapped(x=X.numpy()), TypeError, "x"),
    ("tapped_forward-x-shape", lambda: _tapped(x=X[0]), ValueError, "x"),
    ("tapped_forward-x-empty", lambda: _tapped(x=X[:0]), ValueError, "x"),
    ("tapped_forward-x-nan", lambda: _tapped(x=X.clone().fill_(math.nan)), ValueError, "x"),
    ("tapped_forward-x-device", lambda: _tapped(x=META), ValueError, "x"),
    ("tapped_forward-layers-unknown", lambda: _tapped(layers=("nope",)), ValueError, "layers"),
    ("tapped_forward-layers-str", lambda: _tapped(layers="1"), TypeError, "layers"),
    ("tapped_forward-layers-empty", lambda: _tapped(layers=()), ValueError, "layers"),
    ("tapped_forward-relu", lambda: _tapped(relu=1), TypeError, "relu"),
    ("layer_names-model", lambda: arat.layer_names("m"), TypeError, "model"),
    # predictor
    ("Predictor-dim-bool", lambda: arat.Predictor(True), TypeError, "dim"),
    ("Predictor-dim-zero", lambda: arat.Predictor(0), ValueError, "dim"),
    ("Predictor-z-shape", lambda: arat.Predictor(4).eval()(torch.randn(3, 5)), ValueError, "z"),
    ("Predictor-ratio-nan", lambda: arat.Predictor(8, math.nan), ValueError, "ratio"),
    ("predictors-dims", lambda: arat.predictors([8]), TypeError, "dims"),
    ("predictors-dims-value", lambda: arat.predictors({"a": -1}), ValueError, "dims"),
    ("predictors-seed", lambda: arat.predictors({"a": 8}, seed=-1), ValueError, "seed"),
    ("predictors-device", lambda: arat.predictors({"a": 8}, device="tpu"), ValueError, "device"),
    # losses
    ("cosine_distance-u", lambda: arat.cosine_distance([1.0], U), TypeError, "u"),
    ("cosine_distance-shape", lambda: arat.cosine_distance(U, U[:2]), ValueError, "same shape"),
    ("cosine_distance-empty", lambda: arat.cosine_distance(U[:0], U[:0]), ValueError, "u"),
    ("cosine_distance-inf", lambda: arat.cosine_distance(U, U.clone().fill_(math.inf)), ValueError, "v"),
    ("symmetric_invariance-ndim", lambda: arat.symmetric_invariance(U[0], U[0]), ValueError, "z_adv"),
    (
        "asymmetric_invariance-predictor",
        lambda: arat.asymmetric_invariance(U, U, "h"),
        TypeError,
        "predictor",
    ),
    ("asymmetric_invariance-int", lambda: arat.asymmetric_invariance(U, U.long()), ValueError, "z_clean"),
    ("auto_balance_weights-acc", lambda: arat.auto_balance_weights(1.5), ValueError, "clean_accuracy"),
    ("auto_balance_weights-bool", lambda: arat.auto_balance_weights(True), TypeError, "clean_accuracy"),
    ("auto_balance_weights-kappa", lambda: arat.auto_balance_weights(0.5, math.inf), ValueError, "kappa"),
    ("trades_kl-shape", lambda: arat.trades_kl(U, U.T), ValueError, "same shape"),
    ("cw_margin_loss-logits", lambda: arat.cw_margin_loss("z", Y), TypeError, "logits"),
    ("cw_margin_loss-y-range", lambda: arat.cw_margin_loss(U, torch.tensor([0, 1, 2, 3])), ValueError, "y"),
    ("cw_margin_loss-y-dtype", lambda: arat.cw_margin_loss(U, Y.float()), ValueError, "y"),
    # attacks
    ("pgd-model", lambda: _pgd(model=None), TypeError, "model"),
    ("pgd-x-range", lambda: _pgd(x=X + 2), ValueError, "x"),
    ("pgd-x-empty", lambda: _pgd(x=X[:0], y=Y[:0]), ValueError, "x"),
    ("pgd-x-device", lambda: _pgd(x=META), ValueError, "x"),
    ("pgd-x-dtype", lambda: _pgd(x=X.double()), ValueError, "x"),
    ("pgd-y-len", lambda: _pgd(y=Y[:2]), ValueError, "y"),
    ("pgd-y-range", lambda: _pgd(y=Y + 10), ValueError, "y"),
    ("pgd-y-negative", lambda: _pgd(y=Y - 1), ValueError, "y"),
    ("pgd-eps-nan", lambda: _pgd(eps=math.nan), ValueError, "eps"),
    ("pgd-eps-str", lambda: _pgd(eps="0.3"), TypeError, "eps"),
    ("pgd-alpha", lambda: _pgd(alpha=0), ValueError, "alpha"),
    ("pgd-steps-bool", lambda: _pgd(steps=True), TypeError, "steps"),
    ("pgd-steps-negative", lambda: _pgd(steps=-1), ValueError, "steps"),
    ("pgd-loss", lambda: _pgd(loss="dlr"), ValueError, "loss"),
    ("pgd-start", lambda: _pgd(start="zero"), ValueError, "start"),
    ("pgd-generator", lambda: _pgd(generator=0), TypeError, "generator"),
    ("pgd-train_mode", lambda: _pgd(train_mode="yes"), TypeError, "train_mode"),
    ("apgd_ce-steps", lambda: _apgd(steps=0), ValueError, "steps"),
    ("apgd_ce-eps", lambda: _apgd(eps=-0.1), ValueError, "eps"),
    ("apgd_ce-y", lambda: _apgd(y=Y.int()), ValueError, "y"),
    ("apgd_ce-generator", lambda: _apgd(generator="g"), TypeError, "generator"),
    # models
    ("backbone-arch", lambda: arat.backbone(arch="resnet"), ValueError, "arch"),
    ("backbone-channels-empty", lambda: arat.backbone(channels=()), TypeError, "channels"),
    ("backbone-channels-zero", lambda: arat.backbone(channels=(4, 0)), ValueError, "channels[1]"),
    ("backbone-channels-bool", lambda: arat.backbone(channels=(4, True)), TypeError, "channels[1]"),
    ("backbone-split_bn", lambda: arat.backbone(split_bn=1), TypeError, "split_bn"),
    ("backbone-seed", lambda: arat.backbone(seed=1.5), TypeError, "seed"),
    ("backbone-device", lambda: arat.backbone(device="gpu0"), ValueError, "device"),
    ("default_layers-n", lambda: arat.default_layers(MODEL, 0), ValueError, "n"),
    ("default_layers-n-big", lambda: arat.default_layers(MODEL, 5), ValueError, "n"),
    ("default_layers-model", lambda: arat.default_layers("m"), TypeError, "model"),
    # training
    ("TrainConfig-objective", lambda: arat.TrainConfig(objective="mart"), ValueError, "objective"),
    ("TrainConfig-epochs-bool", lambda: arat.TrainConfig(epochs=True), TypeError, "epochs"),
    ("TrainConfig-batch_size", lambda: arat.TrainConfig(batch_size=1), ValueError, "batch_size"),
    ("TrainConfig-lr-inf", lambda: arat.TrainConfig(lr=math.inf), ValueError, "lr"),
    ("TrainConfig-gamma", lambda: arat.TrainConfig(gamma=-1.0), ValueError, "gamma"),
    ("TrainConfig-ratio", lambda: arat.TrainConfig(ratio=0.0), ValueError, "ratio"),
    ("TrainConfig-layers", lambda: arat.TrainConfig(layers="10"), TypeError, "layers"),
    ("TrainConfig-invariance", lambda: arat.TrainConfig(invariance="l2"), ValueError, "invariance"),
    ("train-config", lambda: _train(config={}), TypeError, "config"),
    ("train-x-type", lambda: _train(x=[[0.0]]), TypeError, "x"),
    ("train-x-one", lambda: _train(x=X[:1], y=Y[:1]), ValueError, "x"),
    ("train-y-range", lambda: _train(y=Y + 7), ValueError, "y"),
    ("train-y-device", lambda: _train(y=Y.to("meta")), ValueError, "y"),
    ("train-seed", lambda: _train(seed=-3), ValueError, "seed"),
    ("train-threads", lambda: _train(threads=0), ValueError, "threads"),
    ("lr_at-epoch", lambda: arat.lr_at(CFG, -1), ValueError, "epoch"),
    ("lr_at-config", lambda: arat.lr_at(None, 0), TypeError, "config"),
    ("eps_at-epoch", lambda: arat.eps_at(CFG, -1), ValueError, "epoch"),
    ("eps_at-config", lambda: arat.eps_at(None, 0), TypeError, "config"),
    ("TrainConfig-eps_warmup", lambda: arat.TrainConfig(eps_warmup=-1), ValueError, "eps_warmup"),
    ("TrainConfig-eps_warmup-float", lambda: arat.TrainConfig(eps_warmup=2.5), TypeError, "eps_warmup"),
    # evaluation
    ("EvalConfig-eps", lambda: arat.EvalConfig(eps=math.nan), ValueError, "eps"),
    ("EvalConfig-alpha", lambda: arat.EvalConfig(alpha=-0.01), ValueError, "alpha"),
    ("EvalConfig-restarts", lambda: arat.EvalConfig(restarts=0), ValueError, "restarts"),
    ("EvalConfig-attacks", lambda: arat.EvalConfig(attacks=("fab",)), ValueError, "attacks"),
    ("EvalConfig-attacks-str", lambda: arat.EvalConfig(attacks="pgd_ce"), TypeError, "attacks"),
    ("accuracy-x", lambda: arat.accuracy(MODEL, X[:0], Y[:0]), ValueError, "x"),
    ("accuracy-y", lambda: arat.accuracy(MODEL, X, Y[:3]), ValueError, "y"),
    ("accuracy-branch", lambda: arat.accuracy(PLAIN, X, Y, branch="clen"), ValueError, "branch"),
    ("robust_accuracy-config", lambda: _robust(config=None), TypeError, "config"),
    ("robust_accuracy-y", lambda: _robust(y=Y + 10), ValueError, "y"),
    ("robust_accuracy-seed", lambda: _robust(seed=True), TypeError, "seed"),
    ("gradient_conflict-eps", lambda: _conflict(eps=math.inf), ValueError, "eps"),
    ("gradient_conflict-steps", lambda: _conflict(steps=0), ValueError, "steps"),
    ("gradient_conflict-layers", lambda: _conflict(layers=("x",)), ValueError, "layers"),
    ("gradient_conflict-x", lambda: _conflict(x=X[:1], y=Y[:1]), ValueError, "x"),
    # methods
    ("method_config-name", lambda: arat.method_config("mart"), ValueError, "name"),
    ("method_config-override", lambda: arat.method_config("at", epochz=3), TypeError, "epochz"),
    ("method_config-base", lambda: arat.method_config("at", base={}), TypeError, "base"),
    ("fit-name", lambda: _fit(name="ARAT"), ValueError, "name"),
    ("fit-x", lambda: _fit(x=X.numpy()), TypeError, "x"),
    ("fit-y", lambda: _fit(y=Y.tolist()), TypeError, "y"),
    (
        "fit-device",
        lambda: _fit(device="cuda:99" if torch.cuda.is_available() else "cuda"),
        ValueError,
        "device",
    ),
    ("fit-channels", lambda: _fit(channels=[]), TypeError, "channels"),
    ("fit-epochs", lambda: _fit(epochs=-1), ValueError, "epochs"),
    # data
    ("noisy_background-x", lambda: arat.noisy_background(X.numpy(), 0.5, seed=0), TypeError, "x"),
    ("noisy_background-shape", lambda: arat.noisy_background(X[0], 0.5, seed=0), ValueError, "x"),
    ("noisy_background-amplitude", lambda: arat.noisy_background(X, -0.1, seed=0), ValueError, "amplitude"),
    ("noisy_background-nan", lambda: arat.noisy_background(X, math.nan, seed=0), ValueError, "amplitude"),
    ("noisy_background-seed", lambda: arat.noisy_background(X, 0.5, seed=-1), ValueError, "seed"),
]


@pytest.mark.parametrize(("func", "error", "fragment"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_is_refused(func: Callable[[], Any], error: type[Exception], fragment: str) -> None:
    with pytest.raises(error, match=re.escape(fragment)):
        func()


def test_every_public_callable_has_a_case() -> None:
    """Each callable in arat.__all__ (constants and the output records aside) is exercised above."""
    covered = {c[0].split("-")[0] for c in CASES}
    records = {"BRANCHES", "METHODS", "MethodInfo", "Trained"}
    assert set(paperkit.public_table("arat")) - records - covered == set()
