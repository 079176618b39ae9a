"""Bad input at every public entry of ``plnl.__all__``: a TypeError/ValueError whose message names the
argument. No training runs here (each case fails in the checks, before any epoch)."""

from __future__ import annotations

import math

import numpy as np
import paperkit
import plnl
import pytest
import torch
from plnl import (
    LabelState,
    PLNLConfig,
    TrainConfig,
    build_model,
    check_complementary,
    check_labels,
    cll_digits,
    consistency_kl,
    consistency_target,
    fit_plnl,
    forward_loss,
    free_loss,
    intensity,
    knn_indices,
    negative_label_enhancement,
    nle_counts,
    nn_loss,
    pc_loss,
    plnl_epoch,
    positive_label_guessing,
    predict,
    run_method,
    scl_exp,
    scl_log,
    strong_view,
    subset_complementary,
    subset_weights,
    supervised_bce,
    train_cll,
    ub_exp,
    ub_log,
    uniform_complementary,
    weak_view,
)
from torch import nn

N, K = 6, 4
F_ = torch.zeros(N, K)
C_ = torch.zeros(N, K)
C_[:, 0] = 1.0
Y = torch.tensor([1, 2, 3, 1, 2, 3])
X = torch.zeros(N, 1, 2, 2)
NAN_F = torch.full((N, K), math.nan)
GEN = torch.Generator().manual_seed(0)
KNN = torch.zeros(N, 2, dtype=torch.int64)
PRIOR = torch.full((K,), 0.25)
EMPTY_ROW = C_.clone()
EMPTY_ROW[2] = 0
FULL_ROW = C_.clone()
FULL_ROW[3] = 1


def _model() -> nn.Module:
    return nn.Sequential(nn.Flatten(), nn.Linear(4, K))


def _state(**kw: object) -> LabelState:
    base = {
        "C": C_.clone(),
        "flags": torch.zeros(N, dtype=torch.bool),
        "y_hat": torch.zeros(N, dtype=torch.int64),
    }
    return LabelState(**{**base, **kw})  # type: ignore[arg-type]


def _epoch(**kw: object) -> object:
    m = _model()
    args = {
        "model": m, "opt": torch.optim.SGD(m.parameters(), lr=0.1), "state": _state(), "peer_queue": [],
        "x": X, "C0": C_, "epoch": 0, "cfg": PLNLConfig(), "gen": GEN,
    }  # fmt: skip
    args.update(kw)
    return plnl_epoch(**args)  # type: ignore[arg-type]


def _run(**kw: object) -> object:
    args = {"x": X, "C": C_, "x_eval": X, "epochs": 1, "seed": 0}
    args.update(kw)
    name = args.pop("name", "scl_log")
    return run_method(name, **args)  # type: ignore[arg-type]


LOSS_FNS = [scl_log, scl_exp, ub_log, ub_exp, pc_loss, forward_loss, consistency_target]

CASES = [
    # labels
    ("check_labels", lambda: check_labels([0.5, 1.0], 2), TypeError, "y"),
    ("check_labels", lambda: check_labels([0, 5], 2), ValueError, "y must hold labels"),
    ("check_labels", lambda: check_labels(np.array([], dtype=int), 2), ValueError, "y must hold at least"),
    ("check_labels", lambda: check_labels([0, 1], True), TypeError, "n_classes"),
    ("check_labels", lambda: check_labels([0, 0], 2), ValueError, "classes [1]"),
    ("check_complementary", lambda: check_complementary(EMPTY_ROW), ValueError, "C row 2"),
    ("check_complementary", lambda: check_complementary(FULL_ROW), ValueError, "C row 3"),
    ("check_complementary", lambda: check_complementary(C_ * 0.5), ValueError, "C must hold only 0 and 1"),
    ("check_complementary", lambda: check_complementary(torch.zeros(3)), ValueError, "C"),
    ("check_complementary", lambda: check_complementary(NAN_F), ValueError, "C must be finite"),
    (
        "check_complementary",
        lambda: check_complementary(C_, y=torch.zeros(N, dtype=torch.int64)),
        ValueError,
        "true label",
    ),
    ("uniform_complementary", lambda: uniform_complementary([0, 1], 2, nc=2, seed=0), ValueError, "nc"),
    ("uniform_complementary", lambda: uniform_complementary([0, 1], 2, nc=True, seed=0), TypeError, "nc"),
    ("uniform_complementary", lambda: uniform_complementary([0, 1], 2, seed=-1), ValueError, "seed"),
    ("uniform_complementary", lambda: uniform_complementary([0, 1], 2, seed=1.5), TypeError, "seed"),
    ("subset_complementary", lambda: subset_complementary([0, 3], 2, seed=0), ValueError, "y"),
    ("subset_complementary", lambda: subset_complementary([0, 1], 2, seed="a"), TypeError, "seed"),
    ("subset_weights", lambda: subset_weights(1), ValueError, "n_classes"),
    ("subset_weights", lambda: subset_weights(2.0), TypeError, "n_classes"),
    # losses (and the LOSSES registry, which holds the same functions)
    *[(fn.__name__, lambda fn=fn: fn([[0.0, 1.0]], C_), TypeError, "f") for fn in LOSS_FNS],
    *[(fn.__name__, lambda fn=fn: fn(NAN_F, C_), ValueError, "f must be finite") for fn in LOSS_FNS],
    *[(fn.__name__, lambda fn=fn: fn(F_, C_[:3]), ValueError, "C must have f's shape") for fn in LOSS_FNS],
    *[(fn.__name__, lambda fn=fn: fn(F_, EMPTY_ROW), ValueError, "C row 2") for fn in LOSS_FNS],
    *[(fn.__name__, lambda fn=fn: fn(F_.long(), C_), TypeError, "f must be a floating") for fn in LOSS_FNS],
    *[
        (name, lambda fn=fn: fn(F_, C_.numpy()), TypeError, "C")
        for name, fn in plnl.LOSSES.items()
        if name not in ("nn", "free")
    ],
    ("nn_loss", lambda: nn_loss(F_, C_, torch.ones(3)), ValueError, "prior"),
    ("nn_loss", lambda: nn_loss(F_, C_, -PRIOR), ValueError, "prior"),
    ("nn_loss", lambda: nn_loss(F_, C_, PRIOR, beta=-1.0), ValueError, "beta"),
    ("nn_loss", lambda: nn_loss(F_, C_, PRIOR, beta=math.nan), ValueError, "beta"),
    ("nn_loss", lambda: nn_loss(F_, C_, PRIOR[None]), ValueError, "prior"),
    ("free_loss", lambda: free_loss(F_, C_, [0.25] * K), TypeError, "prior"),
    (
        "free_loss",
        lambda: free_loss(F_, torch.cat([C_[:, :2], C_[:, :2]], 1), PRIOR),
        ValueError,
        "exactly one",
    ),
    ("supervised_bce", lambda: supervised_bce(F_, Y.float()), TypeError, "y_hat"),
    ("supervised_bce", lambda: supervised_bce(F_, Y[:3]), ValueError, "y_hat"),
    ("supervised_bce", lambda: supervised_bce(F_, Y + 5), ValueError, "y_hat must hold classes"),
    ("supervised_bce", lambda: supervised_bce(NAN_F, Y), ValueError, "f must be finite"),
    ("consistency_kl", lambda: consistency_kl(F_, torch.zeros(N, K + 1)), ValueError, "target"),
    ("consistency_kl", lambda: consistency_kl(F_, -torch.ones(N, K)), ValueError, "target"),
    ("consistency_kl", lambda: consistency_kl(NAN_F, F_), ValueError, "f_aug"),
    ("consistency_kl", lambda: consistency_kl("f", F_), TypeError, "f_aug"),
    # recovery
    ("positive_label_guessing", lambda: positive_label_guessing(F_, C_), ValueError, "prob_queue"),
    ("positive_label_guessing", lambda: positive_label_guessing(F_[None], C_[:3]), ValueError, "prob_queue"),
    ("positive_label_guessing", lambda: positive_label_guessing(F_[None], C_, lam=-0.1), ValueError, "lam"),
    ("positive_label_guessing", lambda: positive_label_guessing(F_[None], C_, lam="x"), TypeError, "lam"),
    ("positive_label_guessing", lambda: positive_label_guessing(NAN_F[None], C_), ValueError, "prob_queue"),
    ("positive_label_guessing", lambda: positive_label_guessing(F_[None], EMPTY_ROW), ValueError, "C row 2"),
    (
        "positive_label_guessing",
        lambda: positive_label_guessing(F_[None].numpy(), C_),
        TypeError,
        "prob_queue",
    ),
    ("knn_indices", lambda: knn_indices(F_, 0), ValueError, "k"),
    ("knn_indices", lambda: knn_indices(F_, True), TypeError, "k"),
    ("knn_indices", lambda: knn_indices(F_[:1], 1), ValueError, "logits"),
    ("knn_indices", lambda: knn_indices(NAN_F, 1), ValueError, "logits"),
    ("knn_indices", lambda: knn_indices(np.zeros((N, K)), 1), TypeError, "logits"),
    ("intensity", lambda: intensity(C_, KNN + N), ValueError, "knn"),
    ("intensity", lambda: intensity(C_, KNN.float()), TypeError, "knn"),
    ("intensity", lambda: intensity(C_, KNN[:3]), ValueError, "knn"),
    ("intensity", lambda: intensity(C_ * 2, KNN), ValueError, "C0"),
    ("nle_counts", lambda: nle_counts(C_, F_, t=-1.0), ValueError, "t"),
    ("nle_counts", lambda: nle_counts(C_, F_, t=math.inf), ValueError, "t"),
    ("nle_counts", lambda: nle_counts(C_, F_, constant=-1), ValueError, "constant"),
    ("nle_counts", lambda: nle_counts(C_, F_[:, :2]), ValueError, "probs"),
    ("nle_counts", lambda: nle_counts(FULL_ROW, F_), ValueError, "C0 row 3"),
    ("negative_label_enhancement", lambda: negative_label_enhancement(C_, KNN, F_[:3]), ValueError, "probs"),
    ("negative_label_enhancement", lambda: negative_label_enhancement(C_, KNN[:, :0], F_), ValueError, "knn"),
    ("negative_label_enhancement", lambda: negative_label_enhancement(C_, KNN, F_, t=True), TypeError, "t"),
    # training
    ("TrainConfig", lambda: TrainConfig(epochs=0), ValueError, "epochs"),
    ("TrainConfig", lambda: TrainConfig(lr=math.nan), ValueError, "lr"),
    ("TrainConfig", lambda: TrainConfig(batch_size=True), TypeError, "batch_size"),
    ("TrainConfig", lambda: TrainConfig(momentum=1.0), ValueError, "momentum"),
    ("PLNLConfig", lambda: PLNLConfig(train=None), TypeError, "train"),  # type: ignore[arg-type]
    ("PLNLConfig", lambda: PLNLConfig(lam=-1.0), ValueError, "lam"),
    ("PLNLConfig", lambda: PLNLConfig(k=0), ValueError, "k"),
    ("PLNLConfig", lambda: PLNLConfig(qs=1.5), TypeError, "qs"),  # type: ignore[arg-type]
    ("PLNLConfig", lambda: PLNLConfig(plg=1), TypeError, "plg"),  # type: ignore[arg-type]
    ("PLNLConfig", lambda: PLNLConfig(constant_add=-2), ValueError, "constant_add"),
    ("LabelState", lambda: _state(C=EMPTY_ROW), ValueError, "C row 2"),
    ("LabelState", lambda: _state(flags=torch.zeros(N)), TypeError, "flags"),
    ("LabelState", lambda: _state(y_hat=torch.zeros(N + 1, dtype=torch.int64)), ValueError, "y_hat"),
    (
        "train_cll",
        lambda: train_cll(_model(), X, C_, loss="nope", cfg=TrainConfig(), seed=0),
        ValueError,
        "loss",
    ),
    (
        "train_cll",
        lambda: train_cll("m", X, C_, loss="scl_log", cfg=TrainConfig(), seed=0),
        TypeError,
        "model",
    ),
    (
        "train_cll",
        lambda: train_cll(_model(), X, C_[:3], loss="scl_log", cfg=TrainConfig(), seed=0),
        ValueError,
        "C has 3 rows",
    ),
    ("train_cll", lambda: train_cll(_model(), X, C_, loss="scl_log", cfg={}, seed=0), TypeError, "cfg"),
    (
        "train_cll",
        lambda: train_cll(_model(), X, C_, loss="scl_log", cfg=TrainConfig(), seed=True),
        TypeError,
        "seed",
    ),
    (
        "train_cll",
        lambda: train_cll(_model(), X * math.nan, C_, loss="scl_log", cfg=TrainConfig(), seed=0),
        ValueError,
        "x must be finite",
    ),
    ("predict", lambda: predict((), X), ValueError, "models"),
    ("predict", lambda: predict(("m",), X), TypeError, "models[0]"),
    ("predict", lambda: predict((_model(),), X[0]), ValueError, "x"),
    ("plnl_epoch", lambda: _epoch(epoch=-1), ValueError, "epoch"),
    ("plnl_epoch", lambda: _epoch(state={}), TypeError, "state"),
    ("plnl_epoch", lambda: _epoch(opt=None), TypeError, "opt"),
    ("plnl_epoch", lambda: _epoch(peer_queue=[F_[:3]]), ValueError, "peer_queue[0]"),
    ("plnl_epoch", lambda: _epoch(gen=0), TypeError, "gen"),
    ("plnl_epoch", lambda: _epoch(cfg=TrainConfig()), TypeError, "cfg"),
    ("plnl_epoch", lambda: _epoch(C0=C_[:, :3]), ValueError, "state.C"),
    ("fit_plnl", lambda: fit_plnl(None, X, C_, cfg=PLNLConfig(), seed=0), TypeError, "model_fn"),
    ("fit_plnl", lambda: fit_plnl(lambda s: _model(), X, C_, cfg=None, seed=0), TypeError, "cfg"),
    (
        "fit_plnl",
        lambda: fit_plnl(lambda s: _model(), X[:1], C_[:1], cfg=PLNLConfig(), seed=0),
        ValueError,
        "at least 2 images",
    ),
    (
        "fit_plnl",
        lambda: fit_plnl(lambda s: _model(), X, C_, cfg=PLNLConfig(), seed=0, y_true=Y * 0),
        ValueError,
        "true label",
    ),
    (
        "fit_plnl",
        lambda: fit_plnl(lambda s: _model(), X, C_, cfg=PLNLConfig(), seed=0, y_true=[1] * N),
        TypeError,
        "y_true",
    ),
    ("weak_view", lambda: weak_view(X[0], GEN), ValueError, "x"),
    ("weak_view", lambda: weak_view(X, None), TypeError, "generator"),
    ("strong_view", lambda: strong_view(X.long(), GEN), ValueError, "x"),
    # methods
    ("build_model", lambda: build_model(0, K, seed=0), ValueError, "in_dim"),
    ("build_model", lambda: build_model(4, 1, seed=0), ValueError, "n_classes"),
    ("build_model", lambda: build_model(4, K, seed=0, device="gpu0"), ValueError, "device"),
    ("build_model", lambda: build_model(4, K, seed=0, device=0), TypeError, "device"),
    ("run_method", lambda: _run(name="svm"), ValueError, "name"),
    ("run_method", lambda: _run(name="plnl", lam=math.nan), ValueError, "lam"),
    ("run_method", lambda: _run(lam=0.5), TypeError, "lam"),
    ("run_method", lambda: _run(epochs=0), ValueError, "epochs"),
    ("run_method", lambda: _run(epochs=True), TypeError, "epochs"),
    ("run_method", lambda: _run(lr=-0.1), ValueError, "lr"),
    ("run_method", lambda: _run(x=X.numpy()), TypeError, "x"),
    ("run_method", lambda: _run(x_eval=torch.zeros(2, 1, 3, 3)), ValueError, "x_eval"),
    ("run_method", lambda: _run(C=C_[:3]), ValueError, "C has 3 rows"),
    ("run_method", lambda: _run(device="tpu:x"), ValueError, "device"),
    ("run_method", lambda: _run(y_true=Y * 0), ValueError, "true label"),
    ("run_method", lambda: _run(y_true=Y.tolist()), TypeError, "y_true"),
    (
        "run_method",
        lambda: _run(name="nn", C=torch.cat([C_[:, :2], C_[:, :2]], 1)),
        ValueError,
        "exactly one",
    ),
    ("run_method", lambda: _run(seed=-3), ValueError, "seed"),
    # data
    ("cll_digits", lambda: cll_digits(5, seed=0), ValueError, "n_train"),
    ("cll_digits", lambda: cll_digits(100.0, seed=0), TypeError, "n_train"),
    ("cll_digits", lambda: cll_digits(100, n_dev=0, seed=0), ValueError, "n_dev"),
    ("cll_digits", lambda: cll_digits(100, distr=2, seed=0), ValueError, "distr"),
    ("cll_digits", lambda: cll_digits(100, nc=10, seed=0), ValueError, "nc"),
    ("cll_digits", lambda: cll_digits(100, seed=None), TypeError, "seed"),
    ("cll_digits", lambda: cll_digits(100, seed=0, device="nope"), ValueError, "device"),
]

# Result and container types (no arguments to check) and the registries (their entries are checked above).
NOT_CALLED = {"PLNLFit", "Fit", "MethodInfo", "CLLData", "LOSSES", "METHODS"}


@pytest.mark.parametrize(
    ("entry", "call", "error", "fragment"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)]
)
def test_bad_input_is_refused_naming_the_argument(entry, call, error, fragment):
    with pytest.raises(error) as info:
        call()
    assert fragment in str(info.value), f"{entry}: {info.value}"


def test_every_public_entry_has_a_bad_input_case():
    covered = {c[0] for c in CASES} | NOT_CALLED | {"check_complementary"}
    missing = set(paperkit.public_table("plnl")) - covered
    assert not missing, f"public entries without a bad-input case: {sorted(missing)}"


def test_checked_calls_still_compute():
    """The checks pass good input through unchanged (same value as the unchecked path)."""
    assert torch.equal(scl_log(F_, C_), scl_log(F_, C_, check=False))
    assert torch.equal(consistency_target(F_, C_), consistency_target(F_, C_, check=False))
