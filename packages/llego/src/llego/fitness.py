"""Fitness of trees and the crossover's target fitness.

Fitness (paper Sec. 3; official ``FitnessEvaluation``): balanced accuracy on D_train for binary
classification (higher is better), MSE on the train-standardised target for regression (lower is
better). The official code also records the tree's depth as a "complexity metric" but never adds it to
the fitness: the depth limit d is a hard constraint on every offspring (``get_dt_depth <= max_depth``),
and no fairness regulariser is set (``fairness_reg: null``). So the fitness here is the bare metric.

Target fitness of fitness-guided crossover (official ``_compute_target_fitness``), for parent
fitnesses f_1..f_ν:

    higher-better:  f* = max_i f_i + α (max_i f_i − min_i f_i)
    lower-better:   f* = min_i f_i − α (max_i f_i − min_i f_i)

with α = 0.1 (``configs/crossover/default.yaml``); all parents equal gives f* = the common value.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from paperkit import check_array, check_bool, check_choice, check_number

__all__ = ["METRICS", "Fitness", "balanced_accuracy", "mse", "target_fitness"]

METRICS = ("balanced_accuracy", "accuracy", "mse")


def balanced_accuracy(y: np.ndarray, pred: np.ndarray) -> np.ndarray:
    """Mean per-class recall over the classes present in ``y`` (sklearn's definition), per row of
    ``pred: (k, n)`` (or one value for ``pred: (n,)``)."""
    y, p = _pair(y, pred)
    flat = p.ndim == 1
    p = p[None] if flat else p
    recalls = [(p[:, y == c] == c).mean(axis=1) for c in np.unique(y)]
    out = np.mean(recalls, axis=0)
    return out[0] if flat else out


def _pair(y: np.ndarray, pred: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    y = np.asarray(check_array(y, "y", ndim=1))
    p = np.asarray(check_array(pred, "pred"))
    if y.size == 0:
        raise ValueError("y is empty: give at least one label")
    if p.ndim not in (1, 2) or p.shape[-1] != y.shape[0]:
        raise ValueError(f"pred must be (n,) or (k, n) with n = {y.shape[0]} (len(y)), got shape {p.shape}")
    return y, p


def mse(y: np.ndarray, pred: np.ndarray) -> np.ndarray:
    """Mean squared error per row of ``pred: (k, n)``."""
    y, pred = _pair(y, pred)
    return ((np.asarray(pred) - np.asarray(y, float)) ** 2).mean(axis=-1)


def _accuracy(y: np.ndarray, pred: np.ndarray) -> np.ndarray:
    return (np.asarray(pred) == np.asarray(y)).mean(axis=-1)


@dataclass(frozen=True)
class Fitness:
    """A fitness metric and its direction: ``Fitness("balanced_accuracy")`` or ``Fitness("mse")``."""

    metric: str = "balanced_accuracy"

    def __post_init__(self) -> None:
        check_choice(self.metric, "metric", METRICS)

    @property
    def lower_is_better(self) -> bool:
        return self.metric == "mse"

    def __call__(self, y: np.ndarray, pred: np.ndarray) -> np.ndarray:
        """``(k,)`` fitness of each row of ``pred: (k, n)`` against ``y: (n,)``."""
        y, pred = _pair(y, pred)
        fn = {"balanced_accuracy": balanced_accuracy, "accuracy": _accuracy, "mse": mse}[self.metric]
        return np.asarray(fn(y, pred), dtype=float)

    def better(self, a: float, b: float) -> bool:
        """Is fitness ``a`` strictly better than ``b``?"""
        return a < b if self.lower_is_better else a > b

    def best(self, values: np.ndarray) -> int:
        """Index of the best value (first on ties)."""
        v = np.asarray(values, float)
        return int(np.argmin(v) if self.lower_is_better else np.argmax(v))

    def order(self, values: np.ndarray) -> np.ndarray:
        """Indices sorted best first (stable)."""
        v = np.asarray(values, float)
        return np.argsort(v if self.lower_is_better else -v, kind="stable")


def target_fitness(values: np.ndarray, alpha: float, lower_is_better: bool) -> float:
    """f* of one crossover call from its parents' fitness ``values`` (module docstring)."""
    v = check_array(values, "values", ndim=1)
    if v.size == 0:
        raise ValueError("values is empty: give the parents' fitness")
    alpha = check_number(alpha, "alpha")
    check_bool(lower_is_better, "lower_is_better")
    spread = float(v.max() - v.min())
    return float(v.min() - alpha * spread) if lower_is_better else float(v.max() + alpha * spread)
