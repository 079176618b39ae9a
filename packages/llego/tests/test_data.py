"""The official split (36/24/40, test rows fixed across seeds) and bad inputs at the data/config entries."""

from __future__ import annotations

import numpy as np
import pytest
from llego.algorithm import LLEGOConfig
from llego.data import from_arrays, load, split
from llego.prompts import CompactLanguage
from llego.tiny_lm import TinyLMConfig


def test_split_sizes_fixed_test_rows_and_standardised_regression():
    a, b = split(load("breast_cancer"), 0), split(load("breast_cancer"), 1)
    assert (a.X_train.shape[0], a.X_val.shape[0], a.X_test.shape[0]) == (204, 137, 228)
    assert np.array_equal(a.X_test, b.X_test) and not np.array_equal(a.X_val, b.X_val)
    d = split(load("diabetes"), 0)
    assert d.y_train.mean() == pytest.approx(0.0, abs=1e-12) and d.y_train.std(ddof=1) == pytest.approx(1.0)
    X = np.array([[1.0, np.nan], [2.0, 3.0], [3.0, 5.0], [4.0, 1.0], [5.0, 2.0]] * 4)
    s = split(from_arrays(X, np.arange(20.0) % 2, feature_names=["a", "b"], task="classification"), 0)
    assert np.isfinite(s.X_train).all()  # median imputation


@pytest.mark.parametrize(
    ("call", "err", "fragment"),
    [
        (lambda: load("adult"), ValueError, "name"),
        (lambda: split("breast_cancer", 0), TypeError, "dataset"),
        (lambda: from_arrays(np.zeros((3, 2)), np.array([0, 1, 2.0]), feature_names=["a", "b"],
                             task="classification"), ValueError, "binary"),
        (lambda: from_arrays(np.zeros((3, 2)), np.zeros(3), feature_names=["a"], task="regression"),
         ValueError, "feature_names"),
        (lambda: LLEGOConfig(pop_size=3), ValueError, "pop_size"),
        (lambda: LLEGOConfig(alpha=float("nan")), ValueError, "alpha"),
        (lambda: LLEGOConfig(tau=0.0), ValueError, "tau"),
        (lambda: LLEGOConfig(use_crossover=False, use_mutation=False), ValueError, "use_crossover"),
        (lambda: TinyLMConfig(steps=0), ValueError, "steps"),
        (lambda: CompactLanguage(split(load("iris_bin"), 0), n_bins=1), ValueError, "n_bins"),
    ],
)  # fmt: skip
def test_bad_inputs_name_the_argument(call, err, fragment):
    with pytest.raises(err, match=fragment):
        call()
