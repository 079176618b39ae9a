"""Play an algorithm against an environment for T rounds and log the regret."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from paperkit.validation import check_int

from bandit_neural.envs import ContextualBinaryEnv, ContextualDuelingEnv


@dataclass(frozen=True)
class RunLog:
    """Per-round record of one run.

    Attributes:
        regret: (T,) the regret asserted on — average regret f(x*) − (f(x_1) + f(x_2))/2 for duels,
            f(x*) − f(x_t) for binary feedback.
        weak_regret: (T,) f(x*) − max(f(x_1), f(x_2)) (equal to ``regret`` for binary feedback).
        arms: (T, 2) the dueled arms (binary feedback: the arm, twice).
        labels: (T,) the observed feedback.
        seconds: wall-clock time of the run.
    """

    regret: NDArray[np.float64]
    weak_regret: NDArray[np.float64]
    arms: NDArray[np.int64]
    labels: NDArray[np.int64]
    seconds: float

    @property
    def cumulative(self) -> NDArray[np.float64]:
        """R_t = Σ_{s<=t} r_s: (T,)."""
        return np.cumsum(self.regret)

    @property
    def total(self) -> float:
        return float(self.regret.sum())

    def half_ratio(self) -> float:
        """Regret accrued in (T/2, T] over that in (0, T/2] (1 for linear regret, √2 − 1 for √T)."""
        half = len(self.regret) // 2
        return float(self.regret[half:].sum() / self.regret[:half].sum())


def _check_T(T: Any) -> int:
    return check_int(T, "T", low=1)


def run_dueling(env: ContextualDuelingEnv, algo: Any, T: int) -> RunLog:
    """Play ``algo`` (``select(X) -> (i, j)``, ``update(X, i, j, y)``) on ``env`` for rounds 0..T−1."""
    T = _check_T(T)
    if getattr(algo, "d", env.d) != env.d:
        raise ValueError(f"the algorithm was built for d = {algo.d}, the environment has d = {env.d}")
    regret, weak = np.empty(T), np.empty(T)
    arms, labels = np.empty((T, 2), dtype=np.int64), np.empty(T, dtype=np.int64)
    start = time.perf_counter()
    for t in range(T):
        x = env.contexts(t)
        i, j = algo.select(x)
        y = env.duel(t, i, j)
        algo.update(x, i, j, y)
        regret[t], weak[t] = env.regret(t, i, j)
        arms[t], labels[t] = (i, j), y
    return RunLog(regret, weak, arms, labels, time.perf_counter() - start)


def run_binary(env: ContextualBinaryEnv, algo: Any, T: int) -> RunLog:
    """Play ``algo`` (``select(X) -> i``, ``update(X, i, y)``) on ``env`` for rounds 0..T−1."""
    T = _check_T(T)
    if getattr(algo, "d", env.d) != env.d:
        raise ValueError(f"the algorithm was built for d = {algo.d}, the environment has d = {env.d}")
    regret = np.empty(T)
    arms, labels = np.empty((T, 2), dtype=np.int64), np.empty(T, dtype=np.int64)
    start = time.perf_counter()
    for t in range(T):
        x = env.contexts(t)
        i = algo.select(x)
        y = env.pull(t, i)
        algo.update(x, i, y)
        regret[t] = env.regret(t, i)
        arms[t], labels[t] = (i, i), y
    return RunLog(regret, regret.copy(), arms, labels, time.perf_counter() - start)
