"""Baselines: CART with the official tuning, an entropy-CART stand-in for C4.5, and GATree-style GP.

- :func:`cart`: sklearn ``DecisionTree{Classifier,Regressor}`` at ``max_depth=d`` (gini / squared error,
  ``splitter="best"``, ``random_state=69`` as the official ``tune_models``), tuned over
  ``min_samples_split ∈ [2, 16]``, ``min_samples_leaf ∈ [1, 16]`` with 20 trials chosen on the
  validation metric (``configs/baseline/hpt/CART_HPT.yaml``; Optuna's TPE there, seeded random search
  here). ``criterion="entropy"`` is the C4.5 stand-in (the repository vendors bonsai-dt's C4.5).
- :func:`gatree`: conventional GP (``configs/gatree.yaml``): tournament selection of size 2, subtree
  crossover, mutation with probability 0.2, 5 elites (``elite=None``: min(5, N - 1)), from the
  same initial population as LLEGO, the same fitness and depth limit; it stops when ``max_evals``
  fitness evaluations are spent, so it can be
  matched to LLEGO's budget.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from paperkit import check_choice, check_int, check_number, check_seed

from llego.algorithm import Evaluator, initial_population
from llego.data import Split, check_split
from llego.operators import Individual, hall_of_fame
from llego.tree import Node, check_trees, from_sklearn
from llego.variation import varied

__all__ = ["CartResult", "GPResult", "cart", "gatree", "gp_values"]


@dataclass(frozen=True)
class CartResult:
    best: Individual
    params: dict[str, int]
    trials: int


def cart(
    split: Split, *, max_depth: int = 3, trials: int = 20, seed: int = 0, criterion: str = "gini"
) -> CartResult:
    """Tuned CART (module docstring); ``criterion``: ``"gini"`` or ``"entropy"`` (classification only)."""
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    check_split(split)
    check_int(max_depth, "max_depth", low=1)
    check_int(trials, "trials", low=1)
    rng = np.random.default_rng(check_seed(seed))
    check_choice(criterion, "criterion", ("gini", "entropy"))
    evaluate = Evaluator(split)
    cands = []
    for _ in range(trials):
        p = {"min_samples_split": int(rng.integers(2, 17)), "min_samples_leaf": int(rng.integers(1, 17))}
        if split.task == "classification":
            est = DecisionTreeClassifier(max_depth=max_depth, criterion=criterion, random_state=69, **p)
        else:
            est = DecisionTreeRegressor(max_depth=max_depth, random_state=69, **p)
        est.fit(split.X_train, split.y_train)
        cands.append((from_sklearn(est, split.dataset.feature_names), p))
    inds = evaluate([t for t, _ in cands])
    order = evaluate.fitness.order(np.array([i.val for i in inds]))
    j = int(order[0])
    return CartResult(inds[j], cands[j][1], trials)


@dataclass
class GPResult:
    best: Individual
    history: dict[str, list[float]]
    n_evals: int


def gp_values(split: Split) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """GATree's attribute values (each feature's distinct training values) and the leaf values."""
    values = {f: np.unique(split.X_train[:, j]) for f, j in split.columns.items()}
    leaves = (
        np.array([0.0, 1.0])
        if split.task == "classification"
        else np.quantile(split.y_train, np.linspace(0.05, 0.95, 10))
    )
    return values, leaves


def _tournament(pop: Sequence[Individual], size: int, rng: np.random.Generator, lower: bool) -> Node:
    idx = rng.choice(len(pop), size=min(size, len(pop)), replace=False)
    vals = np.array([pop[int(i)].train for i in idx])
    return pop[int(idx[int(np.argmin(vals) if lower else np.argmax(vals))])].tree


def gatree(
    split: Split,
    *,
    pop_size: int = 25,
    max_evals: int = 650,
    max_depth: int = 3,
    seed: int = 0,
    p_mutation: float = 0.2,
    elite: int | None = None,
    tournament: int = 2,
    init: Sequence[Node] | None = None,
) -> GPResult:
    """GATree-style GP until ``max_evals`` evaluations (the initial population counts); module docstring."""
    check_split(split)
    if init is not None:
        init = check_trees(init, "init")
    pop_size = check_int(pop_size, "pop_size", low=2)
    max_evals = check_int(max_evals, "max_evals", low=pop_size)
    check_int(max_depth, "max_depth", low=1)
    check_number(p_mutation, "p_mutation", low=0.0, high=1.0)
    elite = min(5, pop_size - 1) if elite is None else check_int(elite, "elite", low=0, high=pop_size - 1)
    check_int(tournament, "tournament", low=1)
    rng = np.random.default_rng(check_seed(seed))
    evaluate = Evaluator(split)
    values, leaves = gp_values(split)
    trees = (
        list(init) if init is not None else initial_population(split, pop_size, max_depth, seed, lambda t: t)
    )
    pop = evaluate(trees)
    fit = evaluate.fitness
    seen = list(pop)
    history: dict[str, list[float]] = {"evals": [], "best_train": [], "hof_val": [], "hof_test": []}

    def record() -> None:
        history["evals"].append(float(evaluate.n_evals))
        history["best_train"].append(
            float(min(i.train for i in seen) if fit.lower_is_better else max(i.train for i in seen))
        )
        hof = hall_of_fame(seen, fit)[0]
        history["hof_val"].append(hof.val)
        history["hof_test"].append(hof.test)

    record()
    while evaluate.n_evals < max_evals:
        pop = [pop[int(i)] for i in fit.order(np.array([i.train for i in pop]))]
        n_kids = min(pop_size, max_evals - evaluate.n_evals)
        kids = []
        for _ in range(n_kids):
            a = _tournament(pop, tournament, rng, fit.lower_is_better)
            b = _tournament(pop, tournament, rng, fit.lower_is_better)
            kids.append(
                varied([a, b], rng, max_depth=max_depth, values=values, leaves=leaves, p_mutation=p_mutation)
            )
        kid_inds = evaluate(kids)
        seen += kid_inds
        kid_inds = [kid_inds[int(i)] for i in fit.order(np.array([i.train for i in kid_inds]))]
        pop = (pop[:elite] + kid_inds)[:pop_size]
        if len(pop) < pop_size:
            pop = (pop * (pop_size // len(pop) + 1))[:pop_size]
        record()
    return GPResult(hall_of_fame(seen, fit)[0], history, evaluate.n_evals)
