"""Every public entry (``sebra.__all__``) refuses bad input with TypeError/ValueError naming the argument."""

from __future__ import annotations

import numpy as np
import paperkit
import pytest
import torch
from sebra import (
    DebiasConfig,
    Fitted,
    MethodConfig,
    Net,
    RankConfig,
    RankResult,
    Shortcuts,
    build_net,
    erm_rank,
    group_accuracies,
    make_digit_urbancars,
    predict_proba,
    rank_contrastive_loss,
    rank_quality,
    render,
    run_method,
    sample_pairs,
    sebra_debias,
    sebra_rank,
    stage2_loss,
    train_classifier,
    upweighted_ce,
)

NAN = float("nan")
X = torch.zeros(6, 1, 16, 16)
Y = torch.tensor([0, 0, 0, 1, 1, 1])
I6 = torch.zeros(6, dtype=torch.int64)
X_NAN = X.clone().index_fill_(0, torch.tensor([2]), NAN)
DIG, S, OFF = np.zeros((3, 8, 8)), np.array([0, 1, 0]), np.full((3, 2), 4)
NET = build_net(seed=0)
SPLIT = Shortcuts(X, Y, Y.clone(), Y.clone(), I6)
ONE_CLASS = Shortcuts(X, I6, I6, I6, I6)
F3 = torch.zeros(3, 4)


def _render(**kw):
    args = {"digits": DIG, "s1": S, "s2": S, "offsets": OFF, "stripe_intensity": 0.1, "square_intensity": 1.0}
    return render(**(args | kw))


def _pairs(**kw):
    args = {"y": Y, "ranks": Y + 1, "anchors": torch.arange(6), "gap": 1, "generator": torch.Generator()}
    return sample_pairs(**(args | kw))


def _stage2(**kw):
    args = {"model": NET, "x_anchor": X[:3], "x_pos": X[:3], "x_neg": X[:3], "y_pos": Y[:3], "tau": 0.1,
            "cls_weight": 0.5}  # fmt: skip
    return stage2_loss(**(args | kw))


def _train(**kw):
    return train_classifier(**({"model": NET, "x": X, "y": Y, "epochs": 1, "seed": 0} | kw))


def _groups(**kw):
    return group_accuracies(**({"pred": Y, "y": Y, "s1": Y, "s2": Y} | kw))


CASES = {
    "Shortcuts": [
        (lambda: Shortcuts(X.numpy(), Y, Y, Y, I6), TypeError, "x"),
        (lambda: Shortcuts(X[:, 0], Y, Y, Y, I6), ValueError, "x must be a floating"),
        (lambda: Shortcuts(X_NAN, Y, Y, Y, I6), ValueError, "x must be finite"),
        (lambda: Shortcuts(X, Y[:5], Y, Y, I6), ValueError, "y must be an int64 vector"),
        (lambda: Shortcuts(X, Y, Y.float(), Y, I6), ValueError, "s1 must be an int64"),
        (lambda: Shortcuts(X, Y, Y, Y + 1, I6), ValueError, "s2 must be binary"),
        (lambda: Shortcuts(X, Y, Y, Y, [0] * 6), TypeError, "digit"),
    ],
    "make_digit_urbancars": [
        (lambda: make_digit_urbancars(0), ValueError, "n_train"),
        (lambda: make_digit_urbancars(True), TypeError, "n_train"),
        (lambda: make_digit_urbancars(8, 8.0), TypeError, "n_val"),
        (lambda: make_digit_urbancars(8, 8, -4), ValueError, "n_test"),
        (lambda: make_digit_urbancars(8, 8, 8, ratio_s2=NAN), ValueError, "ratio_s2"),
        (lambda: make_digit_urbancars(8, 8, 8, square_intensity=2.0), ValueError, "square_intensity"),
        (lambda: make_digit_urbancars(8, 8, 8, seed=-1), ValueError, "seed"),
        (lambda: make_digit_urbancars(8, 8, 8, device="tpu9"), ValueError, "device"),
    ],
    "render": [
        (lambda: _render(digits=np.zeros((3, 7, 7))), ValueError, "digits"),
        (lambda: _render(digits=np.full((3, 8, 8), np.inf)), ValueError, "digits must be finite"),
        (lambda: _render(s1=np.array([0, 2, 0])), ValueError, "s1"),
        (lambda: _render(s2=np.array([0, 1])), ValueError, "s2"),
        (lambda: _render(offsets=np.full((3, 2), 9)), ValueError, "offsets"),
        (lambda: _render(offsets=np.full((3, 2), 1.5)), TypeError, "offsets"),
        (lambda: _render(stripe_intensity=NAN), ValueError, "stripe_intensity"),
        (lambda: _render(digits="abc"), TypeError, "digits"),
    ],
    "RankConfig": [
        (lambda: RankConfig(p_crit=NAN), ValueError, "p_crit"),
        (lambda: RankConfig(max_epochs=True), TypeError, "max_epochs"),
        (lambda: RankConfig(batch_size=0), ValueError, "batch_size"),
        (lambda: RankConfig(lr=float("inf")), ValueError, "lr"),
        (lambda: RankConfig(weight_decay=-1.0), ValueError, "weight_decay"),
        (lambda: RankConfig(unranked="none"), ValueError, "unranked"),
    ],
    "RankResult": [
        (lambda: RankResult([1, 2], torch.ones(2, dtype=torch.bool), np.ones(1)), TypeError, "ranks"),
        (lambda: RankResult(Y, torch.ones(5, dtype=torch.bool), np.ones(1)), ValueError, "ranked"),
        (lambda: RankResult(Y, torch.ones(6, dtype=torch.bool), "x"), TypeError, "remaining"),
    ],
    "erm_rank": [
        (lambda: erm_rank(X.numpy(), Y, seed=0), TypeError, "x"),
        (lambda: erm_rank(X_NAN, Y, seed=0), ValueError, "x must be finite"),
        (lambda: erm_rank(X[:0], Y[:0], seed=0), ValueError, "x must be a non-empty"),
        (lambda: erm_rank(X, Y.float(), seed=0), ValueError, "y must be an int64"),
        (lambda: erm_rank(X, Y - 1, seed=0), ValueError, "classes 0..C-1"),
        (lambda: erm_rank(X, Y, {"lr": 1}, seed=0), TypeError, "config"),
        (lambda: erm_rank(X, Y, seed=1.5), TypeError, "seed"),
        (lambda: erm_rank(X, Y, seed=0, device="gpu"), ValueError, "device"),
    ],
    "sebra_rank": [
        (lambda: sebra_rank(torch.zeros(6, 3), Y, seed=0), ValueError, r"x must be \(n, 1, h, w\)"),
        (lambda: sebra_rank(X, Y[:4], seed=0), ValueError, r"y must be an int64 vector of len\(x\) = 6"),
        (lambda: sebra_rank(X, Y, seed=0, model="resnet"), TypeError, "model"),
        (lambda: sebra_rank(X, Y, seed=None), TypeError, "seed"),
        (lambda: sebra_rank(X, torch.tensor([0, 0, 0, 0, 0, 1]), seed=0), ValueError, "rank buckets"),
    ],
    "upweighted_ce": [
        (lambda: upweighted_ce(F3, Y[:3], NAN), ValueError, "beta_inv"),
        (lambda: upweighted_ce(F3, Y[:3], True), TypeError, "beta_inv"),
        (lambda: upweighted_ce(F3.numpy(), Y[:3], 0.5), TypeError, "logits"),
        (lambda: upweighted_ce(F3, Y[:2], 0.5), ValueError, "y must be a vector of 3"),
        (lambda: upweighted_ce(F3, Y[:3] + 5, 0.5), ValueError, "labels in 0..C-1"),
        (lambda: upweighted_ce(F3, Y[:3].float(), 0.5), TypeError, "y must be a"),
    ],
    "rank_contrastive_loss": [
        (lambda: rank_contrastive_loss(F3, F3, F3, -1.0), ValueError, "tau"),
        (lambda: rank_contrastive_loss([[0.0]], F3, F3, 0.1), TypeError, "anchor"),
        (lambda: rank_contrastive_loss(F3, F3[:2], F3, 0.1), ValueError, "positive"),
        (lambda: rank_contrastive_loss(F3, F3, F3 * NAN, 0.1), ValueError, "negative must be finite"),
        (lambda: rank_contrastive_loss(F3, F3, F3.long(), 0.1), TypeError, "negative"),
    ],
    "sample_pairs": [
        (lambda: _pairs(gap=0), ValueError, "gap"),
        (lambda: _pairs(gap=True), TypeError, "gap"),
        (lambda: _pairs(drop_top=1), TypeError, "drop_top"),
        (lambda: _pairs(y=Y.float()), TypeError, "y must be"),
        (lambda: _pairs(ranks=Y[:3]), ValueError, "ranks"),
        (lambda: _pairs(y=Y[:0], ranks=Y[:0], anchors=Y[:0]), ValueError, "y and ranks"),
        (lambda: _pairs(y=Y - 1), ValueError, "y must hold class indices"),
        (lambda: _pairs(anchors=torch.tensor([0, 6])), ValueError, "anchors"),
        (lambda: _pairs(generator=0), TypeError, "generator"),
    ],
    "DebiasConfig": [
        (lambda: DebiasConfig(epochs=0), ValueError, "epochs"),
        (lambda: DebiasConfig(tau=NAN), ValueError, "tau"),
        (lambda: DebiasConfig(weight_decay=-1e-5), ValueError, "weight_decay"),
        (lambda: DebiasConfig(gap=2.0), TypeError, "gap"),
        (lambda: DebiasConfig(cls_weight=-0.5), ValueError, "cls_weight"),
        (lambda: DebiasConfig(drop_top="yes"), TypeError, "drop_top"),
    ],
    "sebra_debias": [
        (lambda: sebra_debias(X, Y, Y.tolist(), seed=0), TypeError, "ranks"),
        (lambda: sebra_debias(X, Y, Y[:5], seed=0), ValueError, "ranks"),
        (lambda: sebra_debias(torch.zeros(6, 4), Y, Y, seed=0), ValueError, r"x must be \(n, 1, h, w\)"),
        (lambda: sebra_debias(X, Y, Y, "cfg", seed=0), TypeError, "config"),
        (lambda: sebra_debias(X, Y, Y, val=X, seed=0), TypeError, "val"),
        (lambda: sebra_debias(X, Y, Y, val=(X, Y[:2]), seed=0), ValueError, r"val\[1\]"),
        (lambda: sebra_debias(X, Y, Y, seed=0, device="cuda:x"), ValueError, "device"),
        (lambda: sebra_debias(X, Y, Y, seed=-3), ValueError, "seed"),
    ],
    "stage2_loss": [
        (lambda: _stage2(model=torch.nn.Linear(2, 2)), TypeError, "model"),
        (lambda: _stage2(x_pos=X[:3].numpy()), TypeError, "x_pos"),
        (lambda: _stage2(x_neg=X_NAN[:3]), ValueError, "x_neg must be finite"),
        (lambda: _stage2(y_pos=Y[:2]), ValueError, "y_pos"),
        (lambda: _stage2(tau=0), ValueError, "tau"),
        (lambda: _stage2(cls_weight=NAN), ValueError, "cls_weight"),
    ],
    "Net": [
        (lambda: Net("enc", torch.nn.Linear(2, 2)), TypeError, "encoder"),
        (lambda: Net(torch.nn.Identity(), None), TypeError, "head"),
    ],
    "build_net": [
        (lambda: build_net(1, seed=0), ValueError, "n_classes"),
        (lambda: build_net(True, seed=0), TypeError, "n_classes"),
        (lambda: build_net(channels=(16, 0), seed=0), ValueError, "channels"),
        (lambda: build_net(seed=-1), ValueError, "seed"),
        (lambda: build_net(seed=0, device="nowhere"), ValueError, "device"),
    ],
    "predict_proba": [
        (lambda: predict_proba("net", X), TypeError, "model"),
        (lambda: predict_proba(NET, X.numpy()), TypeError, "x"),
        (lambda: predict_proba(NET, X_NAN), ValueError, "x must be finite"),
        (lambda: predict_proba(NET, X[:0]), ValueError, "x must be a non-empty"),
        (lambda: predict_proba(NET, X, batch_size=0), ValueError, "batch_size"),
    ],
    "train_classifier": [
        (lambda: _train(model=None), TypeError, "model"),
        (lambda: _train(x=X_NAN), ValueError, "x must be finite"),
        (lambda: _train(y=Y[:3]), ValueError, "y must be an int64"),
        (lambda: _train(epochs=0), ValueError, "epochs"),
        (lambda: _train(batch_size=1.5), TypeError, "batch_size"),
        (lambda: _train(lr=NAN), ValueError, "lr"),
        (lambda: _train(weight_decay=-1.0), ValueError, "weight_decay"),
        (lambda: _train(sample_weights=-torch.ones(6)), ValueError, "sample_weights"),
        (lambda: _train(sample_weights=torch.ones(5)), ValueError, "sample_weights"),
        (lambda: _train(groups=Y - 1), ValueError, "groups"),
        (lambda: _train(groups=Y.float()), TypeError, "groups"),
        (lambda: _train(dro_step=0.0), ValueError, "dro_step"),
        (lambda: _train(val=(X, Y, Y)), TypeError, "val"),
        (lambda: _train(seed="0"), TypeError, "seed"),
    ],
    "METHODS": [
        (lambda: run_method("ERM", SPLIT, SPLIT, seed=0), ValueError, "name"),
    ],
    "Fitted": [
        (lambda: Fitted("net", np.zeros(1), torch.zeros(1, 2)), TypeError, "model"),
        (lambda: Fitted(NET, np.zeros(1), [0.5, 0.5]), TypeError, "val_proba"),
    ],
    "MethodConfig": [
        (lambda: MethodConfig(epochs=-1), ValueError, "epochs"),
        (lambda: MethodConfig(jtt_up_weight=0.5), ValueError, "jtt_up_weight"),
        (lambda: MethodConfig(jtt_id_epochs=False), TypeError, "jtt_id_epochs"),
        (lambda: MethodConfig(dro_step=NAN), ValueError, "dro_step"),
        (lambda: MethodConfig(rank=DebiasConfig()), TypeError, "rank"),
        (lambda: MethodConfig(debias=None), TypeError, "debias"),
    ],
    "run_method": [
        (lambda: run_method("sebra++", SPLIT, SPLIT, seed=0), ValueError, "name"),
        (lambda: run_method(3, SPLIT, SPLIT, seed=0), ValueError, "name"),
        (lambda: run_method("erm", {"x": X}, SPLIT, seed=0), TypeError, "train"),
        (lambda: run_method("erm", SPLIT, None, seed=0), TypeError, "val"),
        (lambda: run_method("jtt", SPLIT, SPLIT, RankConfig(), seed=0), TypeError, "config"),
        (lambda: run_method("erm", ONE_CLASS, SPLIT, seed=0), ValueError, "single class"),
        (lambda: run_method("groupdro", SPLIT, SPLIT, seed=True), TypeError, "seed"),
        (lambda: run_method("sebra", SPLIT, SPLIT, seed=0, device="cuda:zero"), ValueError, "device"),
    ],
    "group_accuracies": [
        (lambda: _groups(pred=Y.numpy()), TypeError, "pred"),
        (lambda: _groups(pred=Y.float()), TypeError, "pred"),
        (lambda: _groups(y=Y[:3]), ValueError, "pred, y, s1 and s2"),
        (lambda: _groups(pred=Y[:0], y=Y[:0], s1=Y[:0], s2=Y[:0]), ValueError, "non-empty"),
        (lambda: _groups(y=Y + 1), ValueError, "y must be binary"),
        (lambda: _groups(s2=Y - 1), ValueError, "s2 must be binary"),
    ],
    "rank_quality": [
        (lambda: rank_quality(Y.numpy(), Y), TypeError, "ranks"),
        (lambda: rank_quality(Y.float(), Y), TypeError, "ranks"),
        (lambda: rank_quality(Y, Y[:2]), ValueError, "ranks and aligned"),
        (lambda: rank_quality(Y[:0], Y[:0]), ValueError, "non-empty"),
        (lambda: rank_quality(Y, Y * NAN), ValueError, "aligned must be finite"),
    ],
}
PARAMS = [pytest.param(f, e, m, id=f"{k}-{i}") for k, cs in CASES.items() for i, (f, e, m) in enumerate(cs)]


def test_every_public_entry_has_cases():
    assert set(CASES) == set(paperkit.public_table("sebra"))


@pytest.mark.parametrize(("call", "error", "fragment"), PARAMS)
def test_bad_input_is_refused_naming_the_argument(call, error, fragment):
    with pytest.raises(error, match=fragment):
        call()
