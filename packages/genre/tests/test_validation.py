"""Bad input at the public boundary: the error type and a fragment of the message naming the argument."""

from __future__ import annotations

import re

import numpy as np
import pytest
from genre import NNR, ROAR, GenRe, GrowingSpheres, MLPClassifier, Wachter, evaluate, gold_model, load_moons
from genre.metrics import evaluate_each
from torch import nn


def _h(X):
    return (np.asarray(X)[:, 0] > 0.5).astype(float)


NET = nn.Sequential(nn.Linear(2, 1), nn.Sigmoid())


@pytest.mark.parametrize(
    ("make", "fragment"),
    [
        (lambda: GrowingSpheres(_h, n_samples=0), "n_samples must be an int >= 1"),
        (lambda: GrowingSpheres(_h, step=0.0), "step must be a finite number in (0"),
        (lambda: GrowingSpheres(_h, max_iter=-1), "max_iter must be an int >= 1"),
        (lambda: GrowingSpheres(_h, seed=-3), "seed must be an int >= 0"),
        (lambda: NNR(_h, p=0.5), "p must be a finite number in [1"),
        (lambda: NNR(None, require_valid=True), "require_valid=True needs a classifier"),
        (lambda: NNR(_h, require_valid=True, threshold=1.0), "threshold must be a finite number in [0, 1)"),
        (lambda: Wachter(NET, lr=0.0), "lr must be a finite number in (0"),
        (lambda: Wachter(NET, n_iter=0), "n_iter must be an int >= 1"),
        (lambda: Wachter(NET, lam=float("nan")), "lam must be a finite number"),
        (lambda: Wachter(NET, rounds=1.5), "rounds must be an int >= 1"),
        (lambda: ROAR(NET, delta=-0.1), "delta must be a finite number in [0"),
        (lambda: MLPClassifier(epochs=0), "epochs must be an int >= 1"),
        (lambda: MLPClassifier(hidden=(4, 0)), "hidden widths must be an int >= 1"),
        (lambda: MLPClassifier(lr=-1.0), "lr must be a finite number in (0"),
        (lambda: load_moons(n=5), "n must be an int >= 20"),
        (lambda: load_moons(noise=-1.0), "noise must be a finite number in [0"),
        (lambda: load_moons(test_frac=1.0), "test_frac must be a finite number in (0, 1)"),
    ],
)
def test_constructors_refuse_bad_arguments(make, fragment):
    with pytest.raises(ValueError, match=re.escape(fragment)):
        make()


@pytest.mark.parametrize(
    ("kwargs", "exc", "fragment"),
    [
        ({"gamma": "0.7"}, ValueError, "gamma must be a finite number"),
        ({"gamma": 1.0}, ValueError, "gamma must be a finite number in [0, 1)"),
        ({"n_bins": 0}, ValueError, "n_bins must be an int >= 1"),
        ({"dropout": 1.0}, ValueError, "dropout must be a finite number in [0, 1)"),
        ({"inv_temp": 0.0}, ValueError, "inv_temp"),
        ({"seed": -1}, ValueError, "seed must be an int >= 0"),
        ({"bin_centres": "yes"}, TypeError, "bin_centres must be a bool"),
    ],
)
def test_genre_fit_refuses_bad_parameters(kwargs, exc, fragment):
    X = np.random.default_rng(0).uniform(size=(40, 2))
    y = (X[:, 0] > 0.5).astype(int)
    with pytest.raises(exc, match=re.escape(fragment)):
        GenRe(_h, epochs=1, **kwargs).fit(X, y)


def test_fitted_objects_refuse_bad_arrays():
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(60, 2))
    y = (X[:, 0] > 0.5).astype(int)
    clf = MLPClassifier((4,), 0.05, 2, 32).fit(X, y)
    with pytest.raises(ValueError, match="X has 3 features, but the classifier was fit"):
        clf.predict_proba(np.zeros((2, 3)))
    with pytest.raises(RuntimeError, match="not fitted yet"):
        MLPClassifier().predict_proba(X)
    with pytest.raises(ValueError, match="contains NaN"):
        clf.predict_proba(np.array([[np.nan, 0.0]]))
    with pytest.raises(ValueError, match="y must have shape"):
        MLPClassifier(epochs=1).fit(X, y[:-1])
    with pytest.raises(ValueError, match="both 0 and 1"):
        gold_model(X, np.ones(60, int))
    with pytest.raises(ValueError, match="no candidates"):
        NNR(_h, require_valid=True, threshold=0.99).fit(X, np.zeros(60, int))
    with pytest.raises(ValueError, match="imm_mask must be a bool array"):
        GrowingSpheres(_h, imm_mask=[1, 0]).recourse(X[:2])
    with pytest.raises(ValueError, match="n_samples must be an int >= 1"):
        GenRe(_h, epochs=1, enc_layers=1, dec_layers=1, emb=8, heads=2).fit(X, y).sample(X[:2], 0)


def test_metrics_refuse_unpaired_or_empty_inputs():
    X = np.zeros((3, 2))
    with pytest.raises(ValueError, match="X and X_cf must have the same shape"):
        evaluate_each(X, np.zeros((2, 2)), _h, _h, None)
    with pytest.raises(ValueError, match="X is empty"):
        evaluate(np.zeros((0, 2)), np.zeros((0, 2)), _h, _h, None)


def test_growing_spheres_with_one_sample_still_searches():
    # n_samples=0 used to return the inputs as counterfactuals; the smallest allowed search moves them.
    X = np.array([[0.2, 0.5], [0.3, 0.1]])
    cf = GrowingSpheres(_h, n_samples=1, step=0.1, seed=0).recourse(X)
    assert np.all(_h(cf) == 1.0) and not np.allclose(cf, X)
