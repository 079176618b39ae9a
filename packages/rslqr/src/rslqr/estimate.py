"""Least-squares estimation of θ = [A B] from incrementally kept sufficient statistics.

Model: x_{t+1} = θ z_t + w_t with regressor z_t = (x_t; u_t) ∈ R^d, d = n + m. The (ridge) estimate

    θ̂ = (Σ x_{t+1} z_tᵀ)(Σ z_t z_tᵀ + λ I)⁻¹

depends on the data only through the Gram matrix Σ z zᵀ (d, d) and the cross moment Σ x' zᵀ (n, d),
so a refit costs O(d³) whatever the amount of data.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from rslqr._linalg import FloatArray, as_float_array

__all__ = ["LSFit", "LSStatistics", "least_squares", "solve_least_squares"]


@dataclass(frozen=True, eq=False)
class LSStatistics:
    """Sufficient statistics of a linear regression x' = θ z + w (immutable; ``add`` returns a new one).

    Attributes:
        gram: (d, d) Σ z zᵀ. cross: (n, d) Σ x' zᵀ. count: number of transitions accumulated.
    """

    gram: FloatArray
    cross: FloatArray
    count: int = 0

    @classmethod
    def empty(cls, n: int, d: int) -> LSStatistics:
        """Statistics of no data for n-dimensional targets and d-dimensional regressors."""
        if n < 1 or d < 1:
            raise ValueError(f"n and d must be >= 1, got n={n}, d={d}")
        return cls(gram=np.zeros((d, d)), cross=np.zeros((n, d)), count=0)

    @property
    def n(self) -> int:
        """Target (state) dimension."""
        return int(self.cross.shape[0])

    @property
    def d(self) -> int:
        """Regressor dimension n + m."""
        return int(self.gram.shape[0])

    def add(self, Z: ArrayLike, Y: ArrayLike) -> LSStatistics:
        """Statistics with the transitions (Z[i], Y[i]) appended.

        Args:
            Z: (k, d) regressors z_t = (x_t; u_t). Y: (k, n) targets x_{t+1}.
        """
        Z_ = as_float_array(Z, "Z")
        Y_ = as_float_array(Y, "Y")
        if Z_.ndim != 2 or Z_.shape[1] != self.d:
            raise ValueError(f"Z must have shape (k, d) with d={self.d}, got {Z_.shape}")
        if Y_.ndim != 2 or Y_.shape != (Z_.shape[0], self.n):
            raise ValueError(f"Y must have shape (k, n) = ({Z_.shape[0]}, {self.n}), got {Y_.shape}")
        return LSStatistics(self.gram + Z_.T @ Z_, self.cross + Y_.T @ Z_, self.count + Z_.shape[0])


@dataclass(frozen=True, eq=False)
class LSFit:
    """Result of a least-squares solve.

    Attributes:
        theta: (n, d) estimate θ̂ = [Â B̂].
        rank: numerical rank of the (regularised) Gram matrix.
        rank_deficient: True when rank < d; θ̂ is then the minimum-norm (pseudo-inverse) solution and
            the directions outside the data span are not identified.
    """

    theta: FloatArray
    rank: int
    rank_deficient: bool


def solve_least_squares(stats: LSStatistics, ridge: float = 0.0) -> LSFit:
    """θ̂ = cross (gram + ridge I)⁻¹ from sufficient statistics, O(d³).

    Args:
        stats: accumulated statistics. ridge: λ >= 0 (λ = 0 is ordinary least squares).

    With λ = 0 and a numerically singular Gram matrix (rank below d by the ``numpy.linalg.matrix_rank``
    tolerance d · eps · λ_max), the pseudo-inverse gives the minimum-norm solution; this is reported in
    the returned ``LSFit`` rather than raised, because non-identifiable data is an expected regime
    (System B under greedy play). With no data at all, θ̂ = 0 and rank 0.
    """
    lam = float(ridge)
    if not (np.isfinite(lam) and lam >= 0.0):
        raise ValueError(f"ridge must be finite and >= 0, got {ridge}")
    d = stats.d
    G = stats.gram + lam * np.eye(d) if lam > 0.0 else stats.gram
    G = 0.5 * (G + G.T)
    eig = np.linalg.eigvalsh(G)
    top = float(eig[-1])
    tol = d * np.finfo(np.float64).eps * top
    rank = int(np.sum(eig > tol)) if top > 0.0 else 0
    if rank == d:
        theta = np.linalg.solve(G, stats.cross.T).T
    else:
        theta = stats.cross @ np.linalg.pinv(G, rcond=d * np.finfo(np.float64).eps, hermitian=True)
    return LSFit(theta=np.asarray(theta, dtype=np.float64), rank=rank, rank_deficient=rank < d)


def least_squares(Z: ArrayLike, Y: ArrayLike, ridge: float = 0.0) -> LSFit:
    """(Ridge) least squares for Y ≈ Z θᵀ from raw data: Z (k, d) regressors, Y (k, n) targets."""
    Z_ = as_float_array(Z, "Z")
    Y_ = as_float_array(Y, "Y")
    if Z_.ndim != 2 or Y_.ndim != 2:
        raise ValueError(f"Z and Y must be 2-D (k, d) and (k, n), got {Z_.shape} and {Y_.shape}")
    if not (np.all(np.isfinite(Z_)) and np.all(np.isfinite(Y_))):
        raise ValueError("Z and Y must have only finite entries")
    stats = LSStatistics.empty(Y_.shape[1], Z_.shape[1]).add(Z_, Y_)
    return solve_least_squares(stats, ridge)
