"""Fitness against sklearn and the crossover target's closed form."""

from __future__ import annotations

import numpy as np
import pytest
from llego.fitness import Fitness, target_fitness
from sklearn.metrics import balanced_accuracy_score, mean_squared_error


def test_balanced_accuracy_and_mse_match_sklearn():
    rng = np.random.default_rng(0)
    y = (rng.random(200) < 0.3).astype(float)
    P = (rng.random((5, 200)) < 0.5).astype(float)
    ba = Fitness("balanced_accuracy")(y, P)
    assert ba == pytest.approx([balanced_accuracy_score(y, p) for p in P])
    yr, Pr = rng.normal(size=50), rng.normal(size=(3, 50))
    assert Fitness("mse")(yr, Pr) == pytest.approx([mean_squared_error(yr, p) for p in Pr])
    assert Fitness("mse").lower_is_better and not Fitness().lower_is_better


def test_target_fitness_closed_form():
    assert target_fitness(np.array([0.6, 0.7, 0.8]), 0.1, False) == pytest.approx(0.82)
    assert target_fitness(np.array([1.0, 2.0]), 0.1, True) == pytest.approx(0.9)
    assert target_fitness(np.array([0.5, 0.5]), 0.1, False) == pytest.approx(0.5)  # alpha has no effect


def test_bad_inputs():
    with pytest.raises(ValueError, match="metric"):
        Fitness("auc")
    with pytest.raises(ValueError, match="values"):
        target_fitness(np.array([]), 0.1, False)
    with pytest.raises(ValueError, match="alpha"):
        target_fitness(np.array([0.5]), float("nan"), False)
    with pytest.raises(ValueError, match="pred"):
        Fitness()(np.zeros(3), np.zeros((2, 4)))
