"""Parent sampling, inverse-likelihood selection, dedupe, selection, hall of fame; the loop, scripted."""

from __future__ import annotations

import numpy as np
import pytest
from llego.algorithm import Evaluator, LLEGOConfig, evolve
from llego.data import from_arrays, split
from llego.fitness import Fitness
from llego.llm import ScriptedLLM
from llego.operators import (
    Individual,
    dedupe,
    fitness_weighted_parents,
    hall_of_fame,
    random_parents,
    select,
    select_offspring,
    selection_probabilities,
)
from llego.prompts import NaturalLanguage
from llego.tree import Leaf, Split, to_text


def test_fitness_weighted_frequencies_within_3_sigma():
    f = np.array([0.1, 0.2, 0.3, 0.4, 0.0, -0.5])
    n = 20_000
    draws = fitness_weighted_parents(f, 1, n, np.random.default_rng(0), lower_is_better=False).ravel()
    p = np.clip(f, 0, None) / np.clip(f, 0, None).sum()
    freq = np.bincount(draws, minlength=f.size) / n
    assert np.all(np.abs(freq - p) <= 3 * np.sqrt(p * (1 - p) / n) + 1e-12)  # 3 sigma per cell
    assert freq[4] == 0 and freq[5] == 0
    low = fitness_weighted_parents(
        np.array([1.0, 2.0, 4.0]), 1, n, np.random.default_rng(1), lower_is_better=True
    )
    q = np.array([1, 0.5, 0.25]) / 1.75
    assert np.abs(np.bincount(low.ravel(), minlength=3) / n - q).max() < 3 * np.sqrt(0.25 / n)
    zero = fitness_weighted_parents(
        np.array([0.0, 1.0, 2.0, 3.0]), 4, 3, np.random.default_rng(2), lower_is_better=True
    )
    assert all(len(set(r)) == 4 for r in zero.tolist())  # MSE 0 is guarded (no division by zero)


def test_parents_are_distinct_and_small_populations_refused():
    rows = random_parents(6, 4, 50, np.random.default_rng(0))
    assert rows.shape == (50, 4) and all(len(set(r)) == 4 for r in rows.tolist())
    with pytest.raises(ValueError, match="n_parents"):
        random_parents(3, 4, 1, np.random.default_rng(0))
    with pytest.raises(ValueError, match="n_parents"):
        fitness_weighted_parents(np.ones(2), 4, 1, np.random.default_rng(0), lower_is_better=False)


def test_inverse_likelihood_probabilities_sign_and_limits():
    lp = np.array([-1.0, -2.0, -3.0])
    p = selection_probabilities(lp, 1.0)
    assert p == pytest.approx(np.exp([1, 2, 3]) / np.exp([1, 2, 3]).sum())
    assert selection_probabilities(lp, 1e9) == pytest.approx(np.full(3, 1 / 3))
    assert selection_probabilities(lp, 1.0, "likely")[0] > 0.6
    rng = np.random.default_rng(0)
    kept = [int(select_offspring(list(lp), 1, 1.0, rng)[0][0]) for _ in range(3000)]
    assert np.bincount(kept).argmax() == 2  # the least likely candidate is kept most often
    idx, fell_back = select_offspring([-1.0, None, -3.0], 2, 1.0, rng)
    assert fell_back and len(set(idx.tolist())) == 2
    with pytest.raises(ValueError, match="tau"):
        selection_probabilities(lp, 0.0)
    with pytest.raises(ValueError, match="rule"):
        selection_probabilities(lp, 1.0, "most")


def _ind(tree, train, val, sig):
    return Individual(tree, train, val, 0.0, np.asarray(sig, float))


def test_dedupe_select_tile_and_hall_of_fame_by_validation():
    a = _ind(Leaf(1), 0.5, 0.9, [1, 1])
    b = _ind(Split("x", 0.0, Leaf(1), Leaf(1)), 0.5, 0.1, [1, 1])  # other text, same predictions
    c = _ind(Leaf(0), 0.8, 0.2, [0, 0])
    assert dedupe([a, b, c]) == [a, c]
    fit = Fitness()
    assert select([a, b, c], 1, fit) == [c]
    assert select([a, b, c], 5, fit) == [a, c, a, c, a]
    assert hall_of_fame([a, b, c], fit)[0] is a  # best validation, not best train (c)


def _toy(seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] > 0.2).astype(float)
    return split(from_arrays(X, y, feature_names=["a", "b", "c"], task="classification"), seed)


def test_scripted_optimal_tree_enters_population_and_hall_of_fame():
    sp = _toy()
    best = Split("a", 0.2, Leaf(0), Leaf(1))
    llm = ScriptedLLM([f"## {to_text(best)} ##"], logprobs=[-3.0])
    lang = NaturalLanguage(sp, max_depth=2)
    init = [Leaf(0), Leaf(1), Split("b", 0.0, Leaf(0), Leaf(1)), Split("c", 0.0, Leaf(1), Leaf(0))]
    res = evolve(sp, llm, lang, LLEGOConfig(pop_size=4, generations=2, max_depth=2), seed=0, init=init)
    assert res.best.tree == best and res.best.train == 1.0
    assert any(i.tree == best for i in res.population)
    assert "fitness:" in llm.prompts[0] and llm.prompts[0].rstrip().endswith("Expression:")


def test_invalid_replies_are_dropped_and_patience_stops_after_3_empty_rounds():
    sp = _toy()
    bad = [
        "{'a': {'<= 5': {'value': 0}, '> 4': {'value': 1}}}",
        "{'z': {'<= 5': {'value': 0}, '> 5': {'value': 1}}}",
        "not json",
        "{'a': {'<= 1': {'b': {'<= 1': {'value': 0}, '> 1': {'value': 1}}}, '> 1': {'value': 1}}}",
    ]
    res = evolve(
        sp,
        ScriptedLLM(bad),
        NaturalLanguage(sp, max_depth=1),
        LLEGOConfig(pop_size=4, generations=1, max_depth=1),
        seed=0,
    )
    assert res.crossover.rounds == 3 and res.mutation.rounds == 3
    assert res.crossover.invalid == res.crossover.replies and res.n_evals == 4
    assert {"conditions", "unknown", "not", "tree"} <= set(res.crossover.reasons)


def test_budget_counts_every_evaluation_once():
    sp = _toy()
    ev = Evaluator(sp)
    ev([Leaf(0), Leaf(1)])
    ev.peek([Leaf(0)])
    assert ev.n_evals == 2
    good = [f"## {to_text(Split('a', t, Leaf(0), Leaf(1)))} ##" for t in (0.1, 0.2, 0.3)]
    res = evolve(
        sp,
        ScriptedLLM(good),
        NaturalLanguage(sp, max_depth=2),
        LLEGOConfig(pop_size=4, generations=2, max_depth=2),
        seed=1,
    )
    # per generation: 2 crossover calls x 4 replies (all kept) + 2 mutation calls x 2 kept
    assert res.n_evals == 4 + 2 * (8 + 4) and res.history["evals"] == [4.0, 16.0, 28.0]
