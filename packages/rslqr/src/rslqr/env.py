"""Gymnasium environment for one episode of a linear system with quadratic cost.

Registered (by ``register_envs``) as ``rslqr/EpisodicLEQR-v0``::

    import gymnasium as gym
    from rslqr.env import register_envs
    register_envs()
    env = gym.make("rslqr/EpisodicLEQR-v0", system=system_a(gamma=0.2))
"""

from __future__ import annotations

from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from rslqr._linalg import FloatArray
from rslqr.systems import LEQRSystem, system_a

__all__ = ["ENV_ID", "EpisodicLEQREnv", "register_envs"]

ENV_ID = "rslqr/EpisodicLEQR-v0"


class EpisodicLEQREnv(gym.Env[FloatArray, FloatArray]):
    """One finite-horizon episode of x_{t+1} = A x_t + B u_t + w_t, w_t ~ N(0, W).

    - Observation: the state x_t, (n,) float64, unbounded Box.
    - Action: the control u_t, (m,) float64, unbounded Box (no clipping: the LQ model is linear).
    - Reward of step t: -(x_tᵀ Q x_t + u_tᵀ R u_t), plus -x_Tᵀ QT x_T on the last step (t = T - 1),
      so the return of an episode is exactly -C (cost units).
    - Reset: x_0 ~ N(0, x0_cov), or ``options={"x0": x0}`` to fix it. The process noise of the whole
      episode, w_0..w_{T-1}, is drawn at reset (one call into the generator instead of T), from
      ``self.np_random`` only; seed it with ``reset(seed=...)``.
    - End of episode: ``terminated=True`` after the T-th step, ``truncated`` is always False. The
      horizon is part of the problem (time-varying optimal policy, terminal cost charged), not a
      time limit imposed from outside, so no value should be bootstrapped past t = T.
    - info: {"t": steps taken so far in the episode}.

    The risk parameter γ of ``system`` does not enter the dynamics; it only defines the criterion a
    learner is judged by.
    """

    metadata: dict[str, Any] = {"render_modes": []}  # noqa: RUF012 - gymnasium's class attribute

    def __init__(self, system: LEQRSystem | None = None) -> None:
        super().__init__()
        self.system = system_a() if system is None else system
        if not isinstance(self.system, LEQRSystem):
            raise TypeError(f"system must be an LEQRSystem, got {type(self.system).__name__}")
        n, m = self.system.n, self.system.m
        self.observation_space = spaces.Box(low=-np.inf, high=np.inf, shape=(n,), dtype=np.float64)
        self.action_space = spaces.Box(low=-np.inf, high=np.inf, shape=(m,), dtype=np.float64)
        # Plain attributes for the hot path (step is called T times per episode by every learner).
        self._A = self.system.A
        self._B = self.system.B
        self._Q = self.system.Q
        self._R = self.system.R
        self._QT = self.system.QT
        self._T = self.system.T
        self._x = np.zeros(n)
        self._noise = np.zeros((self._T, n))
        self._t = self._T  # no episode running until reset()

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[FloatArray, dict[str, Any]]:
        """Start an episode. Returns (x_0 (n,), {"t": 0})."""
        super().reset(seed=seed)
        sysm = self.system
        rng = self.np_random
        if options is not None and "x0" in options:
            x0 = np.asarray(options["x0"], dtype=np.float64)
            if x0.shape != (sysm.n,) or not np.all(np.isfinite(x0)):
                raise ValueError(f"options['x0'] must be a finite array of shape ({sysm.n},), got {x0.shape}")
            x0 = x0.copy()
        else:
            x0 = sysm.x0_factor @ rng.standard_normal(sysm.n)
        self._noise = rng.standard_normal((self._T, sysm.n)) @ sysm.W_factor.T
        self._x = x0
        self._t = 0
        return x0.copy(), {"t": 0}

    def step(self, action: FloatArray) -> tuple[FloatArray, SupportsFloat, bool, bool, dict[str, Any]]:
        """Apply u_t. Returns (x_{t+1}, -stage cost [- terminal cost], terminated, False, {"t": t + 1})."""
        t = self._t
        if t >= self._T:
            raise RuntimeError("episode is over (or not started): call reset() before step()")
        u = np.asarray(action, dtype=np.float64).reshape(-1)
        if u.shape[0] != self._B.shape[1]:
            raise ValueError(f"action must have shape ({self._B.shape[1]},), got {np.shape(action)}")
        x = self._x
        cost = float(x @ self._Q @ x + u @ self._R @ u)
        x_next = self._A @ x + self._B @ u + self._noise[t]
        t += 1
        terminated = t == self._T
        if terminated:
            cost += float(x_next @ self._QT @ x_next)
        self._x = x_next
        self._t = t
        return x_next.copy(), -cost, terminated, False, {"t": t}


def register_envs() -> None:
    """Register ``rslqr/EpisodicLEQR-v0`` with gymnasium (idempotent; no episode-step limit wrapper).

    ``gym.make(ENV_ID)`` builds System A at its defaults; pass ``system=`` for another system.
    """
    if ENV_ID in gym.envs.registry:
        return
    gym.register(id=ENV_ID, entry_point="rslqr.env:EpisodicLEQREnv")
