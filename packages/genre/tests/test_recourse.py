"""The GenRe estimator: validation at fit, best-of-k selection, categorical rounding, classifier adapters,
and an end-to-end run on moons."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from genre import GenRe, as_proba
from sklearn.linear_model import LogisticRegression


def linear_h(X):
    """A fixed classifier on [0, 1]²: favourable when x1 + x2 > 1."""
    X = np.asarray(X)
    return 1.0 / (1.0 + np.exp(-10.0 * (X[:, 0] + X[:, 1] - 1.0)))


@pytest.fixture(scope="module")
def toy():
    rng = np.random.default_rng(0)
    X = rng.random((300, 2))
    y = (rng.random(300) < linear_h(X)).astype(int)
    return X, y


TINY = {
    "emb": 8,
    "heads": 2,
    "enc_layers": 1,
    "dec_layers": 1,
    "ff": 16,
    "epochs": 8,
    "batch_size": 256,
    "lr": 3e-3,
}


@pytest.fixture(scope="module")
def fitted(toy):
    X, y = toy
    return GenRe(linear_h, k=6, seed=0, **TINY).fit(X, y)


def test_fit_sets_learned_state(fitted, toy):
    X, y = toy
    h = linear_h(X)
    assert fitted.n_features_in_ == 2
    assert fitted.n_neg_ == int((h <= 0.7).sum())
    assert fitted.n_pos_ == int(((h > 0.7) & (y == 1)).sum())
    assert len(fitted.history_["train"]) == TINY["epochs"]
    assert fitted.history_["epoch"] == [0]  # validation every 10 epochs; 10 % of D⁻ and D⁺ held out
    assert len(fitted.history_["val"]) == 1 and np.isfinite(fitted.history_["val"][0])
    assert 0 <= fitted.best_epoch_ < TINY["epochs"]


def test_recourse_is_the_best_of_k_samples_by_h(fitted, toy):
    X = toy[0][linear_h(toy[0]) < 0.5][:30]
    S = fitted.sample(X, fitted.k, seed=4)  # the same draws recourse makes with seed 4
    scores = linear_h(S.reshape(-1, 2)).reshape(S.shape[:2])
    best = S[np.arange(len(X)), scores.argmax(1)]
    cf = fitted.recourse(X, seed=4)
    np.testing.assert_array_equal(cf, best)
    assert cf.shape == X.shape
    assert np.all(linear_h(cf) >= scores.max(1) - 1e-12)


def test_favourable_inputs_are_returned_unchanged(fitted):
    X = np.array([[0.9, 0.9], [0.1, 0.1]])
    cf = fitted.recourse(X)
    np.testing.assert_array_equal(cf[0], X[0])


def test_categorical_features_are_rounded(toy):
    X, y = toy
    X = X.copy()
    X[:, 1] = (X[:, 1] > 0.5).astype(float)
    g = GenRe(linear_h, k=3, cat_mask=np.array([False, True]), seed=0, **TINY).fit(X, y)
    S = g.sample(X[:20], 5)
    assert S.shape == (20, 5, 2)
    assert np.all(np.isin(S[..., 1], (0.0, 1.0)))


def test_classifier_adapters_agree():
    rng = np.random.default_rng(1)
    X = rng.random((200, 2))
    y = (X.sum(1) > 1).astype(int)
    lr = LogisticRegression().fit(X, y)
    module = torch.nn.Sequential(torch.nn.Linear(2, 1), torch.nn.Sigmoid())
    with torch.no_grad():
        module[0].weight.copy_(torch.as_tensor(lr.coef_, dtype=torch.float32))
        module[0].bias.copy_(torch.as_tensor(lr.intercept_, dtype=torch.float32))
    p = lr.predict_proba(X)[:, 1]
    np.testing.assert_allclose(as_proba(lr)(X), p, rtol=1e-12)
    np.testing.assert_allclose(as_proba(module)(X), p, atol=1e-6)
    np.testing.assert_allclose(as_proba(lambda Z: lr.predict_proba(Z))(X), p, rtol=1e-12)
    with pytest.raises(TypeError, match="classifier must be callable"):
        as_proba(3)


def test_same_seed_same_model_and_recourse(toy, deterministic):
    X, y = toy

    def fit_and_recourse():
        g = GenRe(linear_h, seed=3, **TINY).fit(X, y)
        return g.history_, g.recourse(X[:10], seed=1)

    deterministic(fit_and_recourse)  # training curves and recourse bit-identical across two runs


# ------------------------------------------------------------------ bad input
def test_never_positive_classifier_is_a_clear_error(toy):
    X, y = toy
    with pytest.raises(ValueError, match="no positives to pair with"):
        GenRe(lambda Z: np.full(len(Z), 0.2), **TINY).fit(X, y)


@pytest.mark.parametrize(
    ("kw", "exc", "match"),
    [
        (
            {"imm_mask": np.array([True, False, False])},
            ValueError,
            "imm_mask must have one entry per feature",
        ),
        ({"cat_mask": np.array([True])}, ValueError, "cat_mask must have one entry per feature"),
        ({"imm_mask": np.array([1, 0])}, TypeError, "imm_mask must be a boolean array"),
        ({"encoder_label": "both"}, ValueError, "encoder_label must be one of"),
        (
            {"inv_temp": 0.0},
            ValueError,
            r"inv_temp \(it multiplies the logits\) must be",
        ),
        ({"k": 0}, ValueError, "k must be an int"),
    ],
)
def test_bad_parameters(toy, kw, exc, match):
    with pytest.raises(exc, match=match):
        GenRe(linear_h, **{**TINY, **kw}).fit(*toy)


def test_bad_data(toy):
    X, y = toy
    with pytest.raises(ValueError, match=r"min-max scaled to \[0, 1\]"):
        GenRe(linear_h, **TINY).fit(X * 5, y)
    with pytest.raises(ValueError, match="NaN"):
        GenRe(linear_h, **TINY).fit(np.where(X > 0.99, np.nan, X), y)
    with pytest.raises(ValueError, match="labels 0 and 1"):
        GenRe(linear_h, **TINY).fit(X, y * 2)
    with pytest.raises(ValueError, match="must be 2-D"):
        GenRe(linear_h, **TINY).fit(X[:, 0], y)


def test_recourse_rejects_wrong_width_nan_and_unfitted(fitted):
    with pytest.raises(ValueError, match="has 3 features, but the model was fit with 2"):
        fitted.recourse(np.zeros((4, 3)))
    with pytest.raises(ValueError, match="NaN"):
        fitted.recourse(np.array([[np.nan, 0.1]]))
    with pytest.raises(RuntimeError, match="not fitted"):
        GenRe(linear_h).recourse(np.zeros((1, 2)))


def test_inputs_beyond_the_training_range_are_clipped(fitted):
    X = np.array([[-0.3, 0.2], [0.1, 1.4]])
    a = fitted.sample(X, 4, seed=0)
    b = fitted.sample(np.clip(X, 0, 1), 4, seed=0)
    np.testing.assert_array_equal(a, b)
