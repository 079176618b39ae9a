"""``aihf/FeatureGrid-v0``: the spec's tabular gridworld with an exact model.

An ``size x size`` grid (default 8 x 8, |S| = 64), 4 actions (0 up, 1 right, 2 down, 3 left). The
intended move happens with probability ``1 - slip``; otherwise one of the 3 other moves, uniformly
(probability ``slip / 3`` each). A move into a wall leaves the agent in place. Episodes start in the
corner (0, 0) and last ``horizon`` steps (truncation at the time limit; nothing terminates).

Three binary state features φ(s) = (goal, hazard, mud): the goal is the far corner, 8 hazard and 12
mud cells are drawn once from ``layout_seed`` (disjoint, never the start or the goal). The true reward
is r*(s) = φ(s)ᵀθ*, θ* = (1.0, -1.0, -0.2), paid for the state the agent acts in at every step t =
0..H-1, so an episode's return is Σ_t φ(s_t)ᵀθ*.

``transition_matrix()`` (S, A, S), ``features()`` (S, 3), ``initial_distribution()`` (S,) and
``true_reward()`` (S,) expose the model for the exact tabular solvers of :mod:`aihf.tabular`.
"""

from __future__ import annotations

from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray
from paperkit.validation import check_choice, check_int, check_probability

__all__ = ["ENV_ID", "FeatureGridEnv", "grid_layout", "register_envs"]

ENV_ID = "aihf/FeatureGrid-v0"
THETA_STAR = (1.0, -1.0, -0.2)  # spec: goal, hazard, mud
MOVES = np.array([(-1, 0), (0, 1), (1, 0), (0, -1)])  # (row, col): up, right, down, left


def grid_layout(
    size: int = 8, n_hazard: int = 8, n_mud: int = 12, layout_seed: int = 0
) -> NDArray[np.float64]:
    """Binary feature matrix (size*size, 3) of (goal, hazard, mud); state index = row * size + col."""
    check_int(size, "size", low=3)
    n = size * size
    if n_hazard < 0 or n_mud < 0 or n_hazard + n_mud > n - 2:
        raise ValueError(f"need 0 <= n_hazard + n_mud <= {n - 2}, got {n_hazard} + {n_mud}")
    phi = np.zeros((n, 3))
    phi[n - 1, 0] = 1.0
    free = np.arange(1, n - 1)
    cells = np.random.default_rng(layout_seed).permutation(free)
    phi[cells[:n_hazard], 1] = 1.0
    phi[cells[n_hazard : n_hazard + n_mud], 2] = 1.0
    return phi


class FeatureGridEnv(gym.Env[np.int64, np.int64]):
    """Tabular gridworld with binary state features and a linear true reward (see module docstring).

    Args:
        size: grid side (spec: 8).
        slip: probability that the move is replaced by one of the 3 others (spec: 0.1).
        horizon: episode length H (spec: 30).
        layout_seed: seed of the hazard/mud layout (fixed).
        theta_star: true reward weights on (goal, hazard, mud).
        n_hazard, n_mud: numbers of hazard and mud cells (spec: 8 and 12).
        start: ``"corner"`` (spec) or ``"uniform"`` (the one-hot variant's evaluation start).
    """

    metadata: dict[str, Any] = {"render_modes": []}  # noqa: RUF012 - gymnasium's class attribute

    def __init__(
        self,
        size: int = 8,
        slip: float = 0.1,
        horizon: int = 30,
        layout_seed: int = 0,
        theta_star: tuple[float, float, float] = THETA_STAR,
        n_hazard: int = 8,
        n_mud: int = 12,
        start: str = "corner",
    ) -> None:
        super().__init__()
        check_probability(slip, "slip")
        check_int(horizon, "horizon", low=1)
        check_choice(start, "start", ("corner", "uniform"))
        self.size, self.slip, self.horizon, self.start = size, float(slip), horizon, start
        self._phi = grid_layout(size, n_hazard, n_mud, layout_seed)
        self.theta_star = np.asarray(theta_star, dtype=np.float64)
        if self.theta_star.shape != (3,):
            raise ValueError(f"theta_star must have 3 entries, got shape {self.theta_star.shape}")
        self.n_states, self.n_actions = size * size, 4
        self.observation_space = spaces.Discrete(self.n_states)
        self.action_space = spaces.Discrete(self.n_actions)
        self._P = self._build_transitions()
        self._cum = np.cumsum(self._P, axis=2)
        self._r = self._phi @ self.theta_star
        self._s = 0
        self._t = horizon

    def _build_transitions(self) -> NDArray[np.float64]:
        n, k = self.size, self.n_states
        rows, cols = np.divmod(np.arange(k), n)
        nxt = np.empty((k, 4), dtype=np.int64)
        for a, (dr, dc) in enumerate(MOVES):
            r2, c2 = rows + dr, cols + dc
            inside = (r2 >= 0) & (r2 < n) & (c2 >= 0) & (c2 < n)
            nxt[:, a] = np.where(inside, r2 * n + c2, np.arange(k))
        P = np.zeros((k, 4, k))
        for a in range(4):
            for b in range(4):
                p = 1.0 - self.slip if a == b else self.slip / 3.0
                np.add.at(P, (np.arange(k), np.full(k, a), nxt[:, b]), p)
        return P

    # --- the exact model -------------------------------------------------------------------------
    def transition_matrix(self) -> NDArray[np.float64]:
        """P[s, a, s'] (S, A, S), rows sum to 1. A copy."""
        return self._P.copy()

    def features(self) -> NDArray[np.float64]:
        """φ (S, 3) binary state features (goal, hazard, mud). A copy."""
        return self._phi.copy()

    def true_reward(self) -> NDArray[np.float64]:
        """r*(s) = φ(s)ᵀθ* (S,)."""
        return self._r.copy()

    def initial_distribution(self) -> NDArray[np.float64]:
        """ρ0 (S,): a point mass on state 0 (``start="corner"``) or uniform."""
        if self.start == "uniform":
            return np.full(self.n_states, 1.0 / self.n_states)
        rho = np.zeros(self.n_states)
        rho[0] = 1.0
        return rho

    # --- gymnasium API ---------------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.int64, dict[str, Any]]:
        """Start an episode; returns (s_0, {"t": 0, "features": φ(s_0)})."""
        super().reset(seed=seed)
        if self.start == "uniform":
            self._s = int(self.np_random.integers(self.n_states))
        else:
            self._s = 0
        self._t = 0
        return np.int64(self._s), {"t": 0, "features": self._phi[self._s].copy()}

    def step(self, action: Any) -> tuple[np.int64, SupportsFloat, bool, bool, dict[str, Any]]:
        """Act in s_t: reward φ(s_t)ᵀθ*, move to s_{t+1}; truncated after H steps."""
        if self._t >= self.horizon:
            raise RuntimeError("the episode is over; call reset()")
        if not self.action_space.contains(action):
            raise ValueError(f"action must be an int in [0, 4), got {action!r}")
        reward = float(self._r[self._s])
        u = self.np_random.random()
        nxt = int(np.searchsorted(self._cum[self._s, int(action)], u, side="right"))
        self._s = min(nxt, self.n_states - 1)
        self._t += 1
        truncated = self._t >= self.horizon
        return (
            np.int64(self._s),
            reward,
            False,
            truncated,
            {"t": self._t, "features": self._phi[self._s].copy()},
        )


def register_envs() -> None:
    """Register ``aihf/FeatureGrid-v0`` with gymnasium (idempotent)."""
    if ENV_ID not in gym.registry:
        gym.register(id=ENV_ID, entry_point="aihf.envs.feature_grid:FeatureGridEnv")
