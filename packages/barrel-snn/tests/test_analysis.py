"""Analyses against closed forms and brute force; constraint audit catches violations."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from barrel_snn.analysis import (
    anova_selectivity,
    average_ranks,
    constraint_violations,
    isi_cv,
    population_rates,
    spearman,
)
from barrel_snn.models import BarrelSNN
from scipy.stats import f_oneway, rankdata, spearmanr


def test_isi_cv_closed_forms():
    s = np.zeros((100, 3))
    s[::5, 0] = 1  # regular: CV 0
    s[[0, 1, 11, 12, 22], 1] = 1  # intervals 1, 10, 1, 10: mean 5.5, std 4.5
    s[[3, 50], 2] = 1  # too few spikes
    cv = isi_cv(s)
    assert cv[0] == 0.0 and cv[1] == pytest.approx(4.5 / 5.5) and np.isnan(cv[2])
    with pytest.raises(ValueError, match=r"spikes must be \(T, N\)"):
        isi_cv(np.zeros(5))


def test_population_rates_brute_force(rng):
    spikes = rng.random((2, 30, 13 * 2)) < 0.3
    pop = np.repeat(np.arange(13), 2)
    rates = population_rates(spikes, pop)
    for k in range(13):
        assert rates[k] == pytest.approx(spikes[..., pop == k].mean())


def test_anova_matches_scipy_per_neuron(rng):
    spikes = (rng.random((9, 20, 4)) < 0.2).astype(float)
    spikes[[0, 3, 6], :, 0] = 1.0  # neuron 0 fires always for class 0 -> selective
    labels = np.array([0, 1, 2] * 3)
    p, sel = anova_selectivity(spikes, labels)
    for j in range(1, 4):
        groups = [spikes[labels == c].sum(0)[:, j] for c in range(3)]
        assert p[j] == pytest.approx(f_oneway(*groups).pvalue)
    assert sel[0]


def test_constraint_audit_detects_violations():
    model = BarrelSNN(scale=0.03)
    assert sum(constraint_violations(model).values()) == 0
    with torch.no_grad():
        model.w_rec[0] = 1.5
        model.tau_m[0] = 0.2
    v = constraint_violations(model)
    assert v["weight_range"] == 1 and v["tau"] == 1
    model.constrain_()
    assert sum(constraint_violations(model).values()) == 0


def test_anova_gives_p_one_for_neurons_without_variation():
    labels = np.array([0, 1, 2] * 2)
    spikes = np.zeros((6, 10, 2))
    spikes[labels == 0, :, 1] = 1.0  # constant within every class (no variance): not testable, p = 1
    p, sel = anova_selectivity(spikes, labels)
    np.testing.assert_array_equal(p, [1.0, 1.0])
    assert not sel.any()


def test_spearman_equals_scipy_bit_for_bit(rng):
    # ties (the deprivation claim's x has only a few distinct values) and continuous y
    x = np.repeat([0.0, 1.0, 4.0, 8.0], 3)
    for y in (rng.random(12), np.round(rng.random(12), 1), -x + rng.normal(0, 0.1, 12)):
        np.testing.assert_array_equal(average_ranks(y), rankdata(y))
        assert spearman(x, y) == spearmanr(x, y).statistic
    assert np.isnan(spearman(x, np.ones(12))) and np.isnan(spearman(x[:1], x[:1]))
