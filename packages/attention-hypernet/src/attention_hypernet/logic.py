"""The fuzzy-logic in-context regression task (official ``hyla/data/logic.py``, ``configs/logic.py``).

A task is an OR of ``M`` distinct conjunctions over ``V`` variables; a conjunction takes every variable
either as ``x_v`` or as ``NOT x_v`` (``2^V`` conjunctions). Zadeh semantics: NOT x = 1 - x, AND = min,
OR = max. The last ``floor(frac_ood * 2^V)`` conjunctions (in ``itertools.product`` order, as in the
official code) are held out: OOD tasks are built only from them; in-distribution tasks only from the
others, and those are split ``frac_test`` / rest into test / train by the split seed.

A problem is ``seq_len`` points ``x ~ U[0, 1]^V`` with ``y = f(x)``; a token is ``[x; y]`` and the last
``y`` is zeroed and predicted. Metric (official ``FuzzyLogicLoss``): per-sequence
``R^2 = 1 - (y_hat - y)^2 / var(y over the sequence)``, averaged over sequences.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations, product

import numpy as np
from paperkit import check_array, check_choice, check_int, check_probability, check_seed

from attention_hypernet._checks import check_ndarray, check_rng

__all__ = ["SPLITS", "FuzzyLogic", "LogicBatch", "fuzzy_or_of_ands"]

SPLITS = ("train", "test", "ood")


def fuzzy_or_of_ands(latents: np.ndarray, inputs: np.ndarray) -> np.ndarray:
    """``max_m min_v lit(latents[..., m, v], inputs[..., v])`` with lit(1, x) = x, lit(0, x) = 1 - x.

    ``latents (n, M, V)`` bool, ``inputs (n, T, V)`` -> ``(n, T)``.
    """
    latents = check_ndarray(latents, "latents", ndim=3, kind="b")
    n, _M, V = latents.shape
    inputs = check_ndarray(inputs, "inputs", ndim=3, kind="fiu")
    if inputs.shape[0] != n or inputs.shape[2] != V:
        raise ValueError(f"inputs must be an array of shape ({n}, T, {V}), got shape {inputs.shape}")
    if latents.size == 0 or inputs.size == 0:
        raise ValueError(
            f"latents and inputs must be non-empty, got shapes {latents.shape} and {inputs.shape}"
        )
    lit = np.where(latents[:, None, :, :], inputs[:, :, None, :], 1.0 - inputs[:, :, None, :])
    return lit.min(axis=-1).max(axis=-1)


@dataclass(frozen=True)
class LogicBatch:
    """``x (n, T, V+1)`` float32 tokens (last y zeroed), ``y (n,)`` the target, ``base_mse (n,)`` the
    variance of y over each sequence, ``latents (n, M, V)`` the task's conjunctions (bool)."""

    x: np.ndarray
    y: np.ndarray
    base_mse: np.ndarray
    latents: np.ndarray


@dataclass(frozen=True)
class FuzzyLogic:
    """The task family; ``seed`` fixes the train/test split of the in-distribution tasks."""

    num_vars: int = 4  # official main setting logic_4var_2term
    num_terms: int = 2
    seq_len: int = 16  # official configs/logic.py
    frac_test: float = 0.5
    frac_ood: float = 0.25
    seed: int = 0

    def __post_init__(self) -> None:
        check_int(self.num_vars, "num_vars", low=1, high=10)
        check_int(self.num_terms, "num_terms", low=1)
        check_int(self.seq_len, "seq_len", low=2)
        check_probability(self.frac_test, "frac_test")
        check_probability(self.frac_ood, "frac_ood", allow_one=False)
        check_seed(self.seed)
        if len(self.terms("train")) == 0 or len(self.terms("test")) == 0:
            raise ValueError(
                f"frac_test = {self.frac_test} leaves the train or test split empty "
                f"({len(self._in_dist())} in-distribution tasks)"
            )
        if self.frac_ood > 0 and len(self.terms("ood")) == 0:
            raise ValueError(f"frac_ood = {self.frac_ood} holds out fewer than num_terms conjunctions")

    @property
    def conjunctions(self) -> np.ndarray:
        """``(2^V, V)`` bool: all conjunctions (True = the variable itself, False = its negation)."""
        return np.array(list(product([0, 1], repeat=self.num_vars)), dtype=bool)

    @property
    def num_ood_conjunctions(self) -> int:
        return int(2**self.num_vars * self.frac_ood)

    def _in_dist(self) -> np.ndarray:
        n_in = 2**self.num_vars - self.num_ood_conjunctions
        terms = np.array(list(combinations(range(n_in), self.num_terms)), dtype=np.int64)
        terms = terms.reshape(-1, self.num_terms)
        return terms[np.random.default_rng(self.seed).permutation(len(terms))]

    def terms(self, split: str) -> np.ndarray:
        """``(n_tasks, M)`` conjunction indices of the tasks in ``split``."""
        split = check_choice(split, "split", SPLITS)
        if split == "ood":
            n, n_ood = 2**self.num_vars, self.num_ood_conjunctions
            return np.array(list(combinations(range(n - n_ood, n), self.num_terms)), dtype=np.int64).reshape(
                -1, self.num_terms
            )
        terms = self._in_dist()
        n_test = int(len(terms) * self.frac_test)
        return terms[:n_test] if split == "test" else terms[n_test:]

    def sample(
        self, n: int, split: str, rng: np.random.Generator, *, fixed_query: np.ndarray | None = None
    ) -> LogicBatch:
        """``n`` problems of ``split``; ``fixed_query (V,)`` puts the same last point in every problem
        (the official ``fixed_query`` input distribution, used by the latent probe)."""
        n = check_int(n, "n", low=1)
        check_rng(rng)
        terms = self.terms(split)
        if fixed_query is not None:
            fixed_query = check_array(fixed_query, "fixed_query", shape=(self.num_vars,), kind="fiu")
        latents = self.conjunctions[terms[rng.integers(len(terms), size=n)]]
        inputs = rng.random((n, self.seq_len, self.num_vars))
        if fixed_query is not None:
            inputs[:, -1] = np.asarray(fixed_query, dtype=float).reshape(self.num_vars)
        y = fuzzy_or_of_ands(latents, inputs)
        x = np.concatenate([inputs, y[..., None]], axis=-1)
        x[:, -1, -1] = 0.0
        return LogicBatch(x.astype(np.float32), y[:, -1].astype(np.float32), y.var(axis=1), latents)
