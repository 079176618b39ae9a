"""Synthetic contextual dueling (and binary-feedback) bandits with the spec's utilities.

Round t shows K arm vectors x_{t,k} drawn uniformly on the unit sphere of R^d. The latent utility is

    square: f(x) = 10 (xᵀθ*)²,   cosine: f(x) = cos(3 xᵀθ*),   linear: f(x) = xᵀθ*,

with θ* uniform on the unit sphere (the scale 10 and the frequency 3 are parameters). A duel of
(x_i, x_j) returns y = 1[x_i ≻ x_j] ~ Bernoulli(μ(f(x_i) − f(x_j))), μ the logistic function (BTL); a
binary-feedback round returns y ~ Bernoulli(μ(f(x_i))).

Shared randomness: every random quantity of round t is a function of (seed, t) only — the contexts from
one stream, and a single uniform u_t from another that decides the label as y = 1[u_t < P(y = 1)]. So
every algorithm run on the same seed sees the same contexts, and the same label whenever it duels the same
pair, whatever it did in earlier rounds (common random numbers), and rounds can be read in any order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray
from paperkit.validation import check_int, check_seed

Array = NDArray[np.float64]
UTILITIES = ("square", "cosine", "linear")
_CONTEXT_STREAM, _LABEL_STREAM, _THETA_STREAM = 1, 2, 3


def _utility_fn(name: str, theta: Array, square_scale: float, cosine_freq: float) -> Callable[[Array], Array]:
    if name == "square":
        return lambda x: square_scale * (x @ theta) ** 2
    if name == "cosine":
        return lambda x: np.cos(cosine_freq * (x @ theta))
    return lambda x: x @ theta


class _SyntheticBandit:
    """Shared parts of the dueling and the binary-feedback environments."""

    min_arms = 1

    def __init__(
        self,
        d: int = 5,
        K: int = 10,
        utility: str | Callable[[Array], Array] = "cosine",
        *,
        seed: int = 0,
        theta: Any = None,
        square_scale: float = 10.0,
        cosine_freq: float = 3.0,
    ) -> None:
        check_int(d, "d", low=1)
        if check_int(K, "K") < self.min_arms:
            raise ValueError(f"{type(self).__name__} needs K >= {self.min_arms} arms, got K = {K}")
        check_seed(seed)
        self.d, self.K, self.seed = int(d), int(K), int(seed)
        if theta is None:
            th = np.random.default_rng([self.seed, _THETA_STREAM]).standard_normal(self.d)
            theta = th / np.linalg.norm(th)
        self.theta = np.asarray(theta, dtype=np.float64)
        if self.theta.shape != (self.d,) or not np.all(np.isfinite(self.theta)):
            raise ValueError(f"theta must be a finite vector of shape ({self.d},), got {self.theta.shape}")
        if callable(utility):
            self.utility_name = getattr(utility, "__name__", "custom")
            self._f = utility
        elif utility in UTILITIES:
            self.utility_name = str(utility)
            self._f = _utility_fn(utility, self.theta, square_scale, cosine_freq)
        else:
            raise ValueError(f"utility must be one of {UTILITIES} or a callable, got {utility!r}")
        self._last: tuple[int, Array, Array] | None = None

    def _round(self, t: int) -> tuple[Array, Array]:
        check_int(t, "round t", low=0)
        if self._last is None or self._last[0] != t:
            z = np.random.default_rng([self.seed, _CONTEXT_STREAM, int(t)]).standard_normal((self.K, self.d))
            x = z / np.linalg.norm(z, axis=1, keepdims=True)
            f = np.asarray(self._f(x), dtype=np.float64)
            if f.shape != (self.K,) or not np.all(np.isfinite(f)):
                raise ValueError(f"the utility must map (K, d) to finite (K,) values, got shape {f.shape}")
            self._last = (int(t), x, f)
        return self._last[1], self._last[2]

    def contexts(self, t: int) -> Array:
        """The K arm vectors of round t: (K, d), unit norm."""
        return self._round(t)[0].copy()

    def utilities(self, t: int) -> Array:
        """The true utilities f(x_{t,k}): (K,)."""
        return self._round(t)[1].copy()

    def best_arm(self, t: int) -> int:
        return int(np.argmax(self._round(t)[1]))

    def _uniform(self, t: int) -> float:
        return float(np.random.default_rng([self.seed, _LABEL_STREAM, int(t)]).random())

    def _index(self, name: str, a: Any) -> int:
        check_int(a, f"arm index {name} (for K = {self.K} arms)", low=0, high=self.K - 1)
        return int(a)


def sigmoid(z: Any) -> Any:
    """The logistic link μ(z) = 1 / (1 + e^{−z}), overflow-free."""
    z = np.asarray(z, dtype=np.float64)
    return np.exp(-np.logaddexp(0.0, -z))


class ContextualDuelingEnv(_SyntheticBandit):
    """A contextual dueling bandit with BTL preferences. See the module docstring.

    Args:
        d, K: dimension and number of arms a round (K >= 2).
        utility: ``"square"``, ``"cosine"``, ``"linear"`` or a callable f: (K, d) → (K,).
        seed: θ* (unless ``theta`` is given), the contexts and the labels.
        theta: θ*: (d,); default uniform on the unit sphere.
        square_scale, cosine_freq: the 10 in 10(xᵀθ*)² and the 3 in cos(3xᵀθ*).
    """

    min_arms = 2

    def duel_probability(self, t: int, i: int, j: int) -> float:
        """P(x_i ≻ x_j) = μ(f(x_i) − f(x_j)) in round t."""
        f = self._round(t)[1]
        return float(sigmoid(f[self._index("i", i)] - f[self._index("j", j)]))

    def duel(self, t: int, i: int, j: int) -> int:
        """y = 1[x_{t,i} ≻ x_{t,j}], drawn with the round's shared uniform."""
        return int(self._uniform(t) < self.duel_probability(t, i, j))

    def regret(self, t: int, i: int, j: int) -> tuple[float, float]:
        """(average, weak) regret of dueling (i, j) in round t:
        f(x*) − (f(x_i) + f(x_j))/2 and f(x*) − max(f(x_i), f(x_j))."""
        f = self._round(t)[1]
        fi, fj = f[self._index("i", i)], f[self._index("j", j)]
        best = f.max()
        return float(best - 0.5 * (fi + fj)), float(best - max(fi, fj))


class ContextualBinaryEnv(_SyntheticBandit):
    """A contextual bandit with binary feedback y ~ Bernoulli(μ(f(x))) (the paper's GLM extension).

    Args: as :class:`ContextualDuelingEnv` (K >= 1).
    """

    def probability(self, t: int, i: int) -> float:
        """P(y = 1) = μ(f(x_i)) in round t."""
        return float(sigmoid(self._round(t)[1][self._index("i", i)]))

    def pull(self, t: int, i: int) -> int:
        """y ~ Bernoulli(μ(f(x_{t,i}))), drawn with the round's shared uniform."""
        return int(self._uniform(t) < self.probability(t, i))

    def regret(self, t: int, i: int) -> float:
        """f(x*) − f(x_i) in round t."""
        f = self._round(t)[1]
        return float(f.max() - f[self._index("i", i)])
