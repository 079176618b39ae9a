"""MAP decoding's selection: uniform at λ = 0 (chi-square), ∝ exp(λᵀr) otherwise."""

from __future__ import annotations

import numpy as np
import pytest
from map_palette.decode import map_select, selection_weights
from scipy import stats


def test_zero_lambda_selects_uniformly() -> None:
    R = np.random.default_rng(0).standard_normal((2, 4000 * 8))
    chosen = map_select(R, np.zeros(2), 8, seed=3)
    counts = np.bincount(chosen, minlength=8)
    assert stats.chisquare(counts).pvalue > 0.01


def test_selection_frequencies_follow_the_tilt() -> None:
    base = np.array([[0.0, 1.0, 2.0, 0.5]])
    R = np.tile(base, (1, 20_000))
    w = selection_weights(R, [0.7], 4)
    expect = np.exp(0.7 * base[0]) / np.exp(0.7 * base[0]).sum()
    assert w[0] == pytest.approx(expect)
    freq = np.bincount(map_select(R, [0.7], 4, seed=1), minlength=4) / 20_000
    assert freq == pytest.approx(expect, abs=0.01)


def test_same_seed_same_choice_and_bad_layout() -> None:
    R = np.random.default_rng(1).standard_normal((3, 60))
    lam = np.array([0.2, 0.0, 1.0])
    assert np.array_equal(map_select(R, lam, 6, seed=5), map_select(R, lam, 6, seed=5))
    with pytest.raises(ValueError, match="K = 7 candidates"):
        map_select(R, lam, 7, seed=0)
    with pytest.raises(ValueError, match="lam"):
        map_select(R, lam[:2], 6, seed=0)
