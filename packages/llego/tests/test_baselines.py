"""GP never exceeds the depth limit and spends exactly its budget; CART is sklearn's tree."""

from __future__ import annotations

import numpy as np
import pytest
from llego.baselines import cart, gatree, gp_values
from llego.data import load, split
from llego.tree import depth, predict
from llego.variation import point_mutation, subtree_crossover, varied
from sklearn.tree import DecisionTreeClassifier


@pytest.fixture(scope="module")
def sp():
    return split(load("breast_cancer"), 1)


def test_gp_offspring_respect_depth_and_budget(sp):
    values, leaves = gp_values(sp)
    rng = np.random.default_rng(0)
    res = gatree(sp, pop_size=6, max_evals=40, max_depth=2, seed=0)
    assert res.n_evals == 40 and res.history["evals"][-1] == 40.0
    parents = [res.best.tree] * 2
    for _ in range(200):
        assert depth(varied(parents, rng, max_depth=2, values=values, leaves=leaves, p_mutation=1.0)) <= 2
        assert depth(point_mutation(res.best.tree, values, leaves, rng, 2)) <= 2
    child = subtree_crossover(res.best.tree, parents[1], rng)
    assert depth(child) <= 2 * 2
    assert np.all(np.diff(res.history["best_train"]) >= 0)  # best-so-far never worsens


def test_cart_is_the_sklearn_tree_chosen_on_validation(sp):
    res = cart(sp, max_depth=3, trials=5, seed=0)
    est = DecisionTreeClassifier(max_depth=3, random_state=69, **res.params).fit(sp.X_train, sp.y_train)
    assert np.array_equal(predict(res.best.tree, sp.X_test, sp.columns), est.predict(sp.X_test))
    with pytest.raises(ValueError, match="criterion"):
        cart(sp, criterion="log_loss")
    with pytest.raises(ValueError, match="max_evals"):
        gatree(sp, pop_size=6, max_evals=3)
