"""LLEGO's operators: parent sampling, fitness-guided crossover, diversity-guided mutation, selection.

Parent sampling (official ``parent_sampler.py``): crossover draws ν = 4 distinct parents per call with
probability ∝ f (higher-better) or ∝ 1/f (lower-better; f = 0 is guarded with ε = 1e-12 where the
official code divides by zero), negative weights clipped to 0; mutation draws 4 uniformly without
replacement. A population smaller than ν is an error (as there). When fewer than ν individuals have a
positive weight, the zero-weight ones share a tiny weight so that ν distinct parents still exist.

Crossover (``crossover_operator.py``): parents ordered worst -> best, shown with their train fitness,
target line f* (:func:`llego.fitness.target_fitness`), ν_xo + 2 = 4 completions per call, every valid one
kept; calls are repeated until n offspring are valid or 3 consecutive rounds give none (patience 3).

Mutation (``mutation_operator.py``, ``offspring_selector.py``): parents without fitness in random order,
4 + 2 = 6 candidates per call with log-probs ℓ (sums over tokens); keep 2 per call sampled without
replacement with p_i ∝ exp(−ℓ_i / τ) = P(t_i)^(−1/τ): the *least* likely are preferred, τ -> ∞ is
uniform; τ = 10 (``sampling_temperature``). ``rule="likely"`` is our contrast, p_i ∝ exp(+ℓ_i / τ).

Selection (``selection_operator.py``, ``filter_operator.py``): drop duplicates by functional signature
(train predictions; first kept), sort by train fitness, keep N; fewer than N unique are tiled to N.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from paperkit import check_array, check_bool, check_choice, check_instance, check_int, check_number

from llego.fitness import Fitness
from llego.tree import Node, check_node

__all__ = [
    "Individual",
    "OperatorStats",
    "dedupe",
    "fitness_weighted_parents",
    "hall_of_fame",
    "random_parents",
    "select",
    "select_offspring",
    "selection_probabilities",
]

EPS = 1e-12


@dataclass(frozen=True, eq=False)
class Individual:
    """A tree with its fitness on each split and its functional signature (train predictions)."""

    tree: Node
    train: float
    val: float
    test: float
    signature: np.ndarray = field(repr=False)

    def __post_init__(self) -> None:
        check_node(self.tree, "tree")
        for name in ("train", "val", "test"):
            check_number(getattr(self, name), name, finite=False)
        check_array(self.signature, "signature", ndim=1, finite=False)

    @property
    def key(self) -> bytes:
        return self.signature.tobytes()


@dataclass
class OperatorStats:
    """Counts of one operator over a run: LLM replies, how they parsed, rounds and tokens."""

    replies: int = 0
    ok: int = 0
    repaired: int = 0
    invalid: int = 0
    rounds: int = 0
    empty_rounds: int = 0
    missing_logprobs: int = 0
    reasons: dict[str, int] = field(default_factory=dict)

    @property
    def valid_rate(self) -> float:
        return (self.ok + self.repaired) / self.replies if self.replies else float("nan")

    def count(self, status: str) -> None:
        self.replies += 1
        if status == "ok":
            self.ok += 1
        elif status == "repaired":
            self.repaired += 1
        else:
            self.invalid += 1
            reason = status.split(":", 1)[-1].strip().split(" ")[0] or "unknown"
            self.reasons[reason] = self.reasons.get(reason, 0) + 1


def _check_rng(rng: object) -> None:
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator (np.random.default_rng), got {type(rng).__name__}")


def _check_individuals(individuals: object) -> list[Individual]:
    if not isinstance(individuals, Sequence):
        raise TypeError(f"individuals must be a sequence of Individual, got {type(individuals).__name__}")
    return [check_instance(x, f"individuals[{i}]", Individual) for i, x in enumerate(individuals)]


def _check_calls(n_pop: int, k: int, n_calls: int) -> None:
    check_int(k, "n_parents", low=1)
    check_int(n_calls, "n_calls", low=0)
    if n_pop < k:
        raise ValueError(f"population of {n_pop} is smaller than n_parents={k}")


def fitness_weighted_parents(
    values: np.ndarray, k: int, n_calls: int, rng: np.random.Generator, *, lower_is_better: bool
) -> np.ndarray:
    """``(n_calls, k)`` indices: k distinct parents per call with probability ∝ f (or ∝ 1/f)."""
    v = np.asarray(check_array(values, "values", ndim=1), float)
    _check_calls(v.size, k, n_calls)
    _check_rng(rng)
    check_bool(lower_is_better, "lower_is_better")
    w = 1.0 / np.maximum(v, EPS) if lower_is_better else v.copy()
    w = np.clip(w, 0.0, None)
    if np.count_nonzero(w) < k:
        w = w + (w.max() if w.max() > 0 else 1.0) * 1e-9 * (w == 0)
    # Gumbel top-k: the same law as drawing k times without replacement ∝ the remaining weights
    # (numpy's choice(replace=False, p=...)), for all calls at once.
    with np.errstate(divide="ignore"):
        keys = np.log(w / w.sum()) + rng.gumbel(size=(n_calls, v.size))
    return np.argsort(-keys, axis=1, kind="stable")[:, :k]


def random_parents(n_pop: int, k: int, n_calls: int, rng: np.random.Generator) -> np.ndarray:
    """``(n_calls, k)`` indices: k distinct parents per call, uniformly."""
    _check_calls(check_int(n_pop, "n_pop", low=1), k, n_calls)
    _check_rng(rng)
    return np.argsort(rng.random((n_calls, n_pop)), axis=1)[:, :k]


def selection_probabilities(logprobs: np.ndarray, tau: float, rule: str = "inverse") -> np.ndarray:
    """p_i ∝ exp(−ℓ_i / τ) (``"inverse"``, the paper's) or exp(+ℓ_i / τ) (``"likely"``), stably."""
    lp = np.asarray(check_array(logprobs, "logprobs", ndim=1), float)
    if lp.size == 0:
        raise ValueError("logprobs is empty: give one log-prob per candidate")
    tau = check_number(tau, "tau", low=0.0, low_open=True)
    check_choice(rule, "rule", ("inverse", "likely"))
    z = (-lp if rule == "inverse" else lp) / tau
    w = np.exp(z - z.max())
    return w / w.sum()


def select_offspring(
    logprobs: Sequence[float | None], n_keep: int, tau: float, rng: np.random.Generator, rule: str = "inverse"
) -> tuple[np.ndarray, bool]:
    """Indices of the kept candidates (without replacement; all when there are <= n_keep) and whether the
    selection fell back to uniform because a log-prob was missing."""
    n_keep = check_int(n_keep, "n_keep", low=1)
    check_number(tau, "tau", low=0.0, low_open=True)
    check_choice(rule, "rule", ("inverse", "likely"))
    _check_rng(rng)
    for i, v in enumerate(logprobs):
        if v is not None:
            check_number(v, f"logprobs[{i}]")
    n = len(logprobs)
    if n <= n_keep:
        return np.arange(n), False
    if any(v is None for v in logprobs):
        return np.sort(rng.choice(n, size=n_keep, replace=False)), True
    p = selection_probabilities(np.array(logprobs, float), tau, rule)
    k = min(n_keep, int(np.count_nonzero(p)))  # official: no more than the non-zero weights
    return rng.choice(n, size=k, replace=False, p=p), False


def dedupe(individuals: Sequence[Individual]) -> list[Individual]:
    """First individual of each functional signature, in order."""
    individuals = _check_individuals(individuals)
    seen: set[bytes] = set()
    out = []
    for ind in individuals:
        if ind.key not in seen:
            seen.add(ind.key)
            out.append(ind)
    return out


def select(individuals: Sequence[Individual], n: int, fitness: Fitness) -> list[Individual]:
    """Elitist survivor selection: dedupe, sort by train fitness (stable), keep ``n``; tile if fewer."""
    n = check_int(n, "n", low=1)
    check_instance(fitness, "fitness", Fitness)
    if not individuals:
        raise ValueError("individuals is empty: nothing to select from")
    unique = dedupe(individuals)
    if len(unique) > n:
        order = fitness.order(np.array([i.train for i in unique]))
        return [unique[int(j)] for j in order[:n]]
    return (unique * (n // len(unique) + 1))[:n]


def hall_of_fame(individuals: Sequence[Individual], fitness: Fitness) -> list[Individual]:
    """Every distinct individual seen (by signature), ranked by *validation* fitness, best first."""
    check_instance(fitness, "fitness", Fitness)
    unique = dedupe(individuals)
    if not unique:
        raise ValueError("individuals is empty: no hall of fame")
    order = fitness.order(np.array([i.val for i in unique]))
    return [unique[int(j)] for j in order]
