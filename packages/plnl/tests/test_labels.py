"""Label generators and the shared label checks (bad input: the issue's list)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from plnl.labels import (
    check_complementary,
    check_labels,
    subset_complementary,
    subset_weights,
    uniform_complementary,
)
from scipy import stats

Y = np.repeat(np.arange(10), 300)


def test_uniform_one_label_never_the_true_one_and_uniform_over_wrong_classes():
    C = uniform_complementary(Y, 10, nc=1, seed=0)
    assert (C.sum(1) == 1).all() and (C[np.arange(len(Y)), Y] == 0).all()
    # chi-square over the 9 wrong classes, relative to the true class (uniform -> flat)
    offset = (C.argmax(1) - Y) % 10
    counts = np.bincount(offset, minlength=10)[1:]
    assert stats.chisquare(counts).pvalue > 1e-3
    assert counts.min() > 0


def test_uniform_nc3_rows_hold_three_distinct_wrong_classes():
    C = uniform_complementary(Y, 10, nc=3, seed=1)
    assert (C.sum(1) == 3).all() and (C[np.arange(len(Y)), Y] == 0).all()


def test_subset_sizes_follow_the_official_binomial_weights():
    w = subset_weights(10)
    assert w.sum() == pytest.approx(1.0) and w[0] == pytest.approx(10 / (2**10 - 2))
    C = subset_complementary(Y, 10, seed=2)
    assert (C[np.arange(len(Y)), Y] == 0).all() and (C.sum(1) >= 1).all() and (C.sum(1) <= 9).all()
    sizes = np.bincount(C.sum(1).astype(int), minlength=10)[1:]
    assert stats.chisquare(sizes, w * len(Y)).pvalue > 1e-3


def test_generators_are_seeded():
    assert (uniform_complementary(Y, 10, seed=5) == uniform_complementary(Y, 10, seed=5)).all()
    assert (uniform_complementary(Y, 10, seed=5) != uniform_complementary(Y, 10, seed=6)).any()


def test_nc_equal_to_the_label_set_is_refused():
    with pytest.raises(ValueError, match=r"nc must be an integer in \[1, 9\], got 10"):
        uniform_complementary(Y, 10, nc=10, seed=0)


def test_classes_with_no_examples_are_refused():
    y = np.array([0, 1, 1, 3])
    with pytest.raises(ValueError, match=r"classes \[2\] have no examples"):
        uniform_complementary(y, 4, seed=0)
    with pytest.raises(ValueError, match="have no examples"):
        check_labels(y, 4)


def test_label_matrix_checks():
    ok = torch.tensor([[1.0, 0, 0], [0, 1, 1]])
    assert check_complementary(ok).dtype == torch.float32
    with pytest.raises(ValueError, match="row 1 has no complementary label"):
        check_complementary(torch.tensor([[1.0, 0, 0], [0, 0, 0]]))
    with pytest.raises(ValueError, match="complementary set equals the label set"):
        check_complementary(torch.tensor([[1.0, 1, 1], [0, 1, 0]]))
    with pytest.raises(ValueError, match="row 0 marks its true label 0"):
        check_complementary(ok, y=np.array([0, 0]))
    with pytest.raises(ValueError, match=r"y_true must hold labels in 0 \.\. 2"):
        check_complementary(ok, y=np.array([0, 3]))
    with pytest.raises(ValueError, match="only 0 and 1"):
        check_complementary(torch.tensor([[0.5, 0, 0]]))
    with pytest.raises(ValueError, match="C must be a 2-D array"):
        check_complementary(torch.zeros(3))
