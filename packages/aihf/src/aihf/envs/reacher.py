"""MuJoCo ``Reacher-v5`` helpers: the spec's scripted expert and noisy / mixed behaviour policies.

Reacher-v5 observation (10,): cos q (2), sin q (2), target (x, y), joint velocities q̇ (2),
fingertip − target (x, y). Action: joint torques in [−1, 1]². Links: l1 = 0.1, l2 = 0.11 (the model's
geometry), so the fingertip is p(q) = (l1 cos q1 + l2 cos(q1+q2), l1 sin q1 + l2 sin(q1+q2)).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["L1", "L2", "mixed_policy", "noisy", "reacher_pd_expert", "zero_torque"]

L1, L2 = 0.1, 0.11
F64 = NDArray[np.float64]


def reacher_pd_expert(obs: F64, kp: float = 20.0, kd: float = 0.1) -> F64:
    """Jacobian-transpose PD controller τ = clip(J(q)ᵀ k_p (target − fingertip) − k_d q̇, ±1).

    Args:
        obs: (10,) or (n, 10) Reacher-v5 observations.
        kp, kd: gains (spec: 20 and 0.1).
    Returns:
        (2,) or (n, 2) torques in [−1, 1].
    """
    o = np.asarray(obs, dtype=np.float64)
    if o.shape[-1] != 10:
        raise ValueError(f"expected Reacher-v5 observations with 10 entries, got shape {o.shape}")
    c1, c2, s1, s2 = o[..., 0], o[..., 1], o[..., 2], o[..., 3]
    c12, s12 = c1 * c2 - s1 * s2, s1 * c2 + c1 * s2
    err = -o[..., 8:10]  # target − fingertip
    # J = [[−l1 s1 − l2 s12, −l2 s12], [l1 c1 + l2 c12, l2 c12]]; τ = Jᵀ err
    t1 = (-L1 * s1 - L2 * s12) * err[..., 0] + (L1 * c1 + L2 * c12) * err[..., 1]
    t2 = -L2 * s12 * err[..., 0] + L2 * c12 * err[..., 1]
    tau = kp * np.stack([t1, t2], axis=-1) - kd * o[..., 6:8]
    return np.clip(tau, -1.0, 1.0)


def noisy(sigma: float, kp: float = 20.0, kd: float = 0.1) -> Callable[[Any, int, np.random.Generator], F64]:
    """The expert with N(0, σ²) action noise, clipped to [−1, 1] (a ``policy(obs, t, rng)``)."""

    def act(obs: Any, t: int, rng: np.random.Generator) -> F64:
        return np.clip(reacher_pd_expert(obs, kp, kd) + sigma * rng.standard_normal(2), -1.0, 1.0)

    return act


def mixed_policy(expert_prob: float) -> Callable[[Any, int, np.random.Generator], F64]:
    """At each step the expert's action with probability ``expert_prob``, else uniform in [−1, 1]²."""

    def act(obs: Any, t: int, rng: np.random.Generator) -> F64:
        return reacher_pd_expert(obs) if rng.random() < expert_prob else rng.uniform(-1.0, 1.0, 2)

    return act


def zero_torque() -> Callable[[Any, int, np.random.Generator], F64]:
    """The do-nothing policy τ = 0: Reacher's floor once control cost counts (uniform random torques pay
    about 4x more control cost than they gain in distance, so they score far below it)."""

    def act(obs: Any, t: int, rng: np.random.Generator) -> F64:
        return np.zeros(2)

    return act
