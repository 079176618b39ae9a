"""Synthetic data (seeded): points on the unit sphere with noisy linear labels, and the spec's hard sets
for strict positive definiteness (parallel pairs x, 2x and near-duplicates)."""

from __future__ import annotations

import numpy as np
from paperkit import check_int, check_number, check_seed

__all__ = ["pd_stress_set", "synthetic_sphere"]


def synthetic_sphere(
    n: int = 20, d: int = 5, *, seed: int, noise: float = 0.3
) -> tuple[np.ndarray, np.ndarray]:
    """``(X (n, d) float64 on the unit sphere, y (n,) in {-1, +1})`` with y = sign(x_1 + noise * xi)."""
    n, d = check_int(n, "n", low=2), check_int(d, "d", low=1)
    noise = check_number(noise, "noise", low=0.0)
    rng = np.random.default_rng(check_seed(seed))
    X = rng.standard_normal((n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = np.sign(X[:, 0] + noise * rng.standard_normal(n))
    y[y == 0] = 1.0
    return X, y


def pd_stress_set(n: int = 20, d: int = 5, *, seed: int, gap: float = 1e-3) -> np.ndarray:
    """``(n, d)`` distinct inputs off the sphere containing a parallel pair (x, 2x) and a near-duplicate
    pair at distance ``gap`` (the sets on which strict PD is hardest)."""
    n, d = check_int(n, "n", low=4), check_int(d, "d", low=1)
    gap = check_number(gap, "gap", low=0.0, low_open=True)
    rng = np.random.default_rng(check_seed(seed))
    X = rng.standard_normal((n, d)) * rng.uniform(0.5, 2.0, size=(n, 1))
    X[1] = 2.0 * X[0]
    direction = rng.standard_normal(d)
    X[3] = X[2] + gap * direction / np.linalg.norm(direction)
    return X
