"""The synthetic compositions f* = h o g of the paper's experiments (official ``data_generation.ipynb``).

1. ``X (n, d_in)``, rows i.i.d. N(0, I).
2. ``Z = g(X) (n, d_mid)``: ``d_mid`` independent columns of the GP with Matérn kernel ``K_{nu_g}`` on the
   RMS distance between rows of X (the inner map: smooth, dimension-reducing when d_mid < d_in).
3. ``Y = h(Z) (n, d_out)``: ``d_out`` independent columns of the GP with kernel ``K_{nu_h}`` on Z.

Official sizes: d_in = 15, d_mid = 3, d_out = 20, n = 52 500 (50 000 training pool, the last 2 500 the test
set). Randomness only from ``seed`` (one ``numpy.random.Generator`` for X, g and h, in that order).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from paperkit import check_array, check_int, check_number, check_seed

from compositional_dnn.kernels import check_nu, sample_gp

__all__ = ["Composition", "make_composition"]


@dataclass(frozen=True)
class Composition:
    """One sampled target. ``X (n, d_in)``, ``Z (n, d_mid)``, ``Y (n, d_out)`` float64; the jitter each
    Cholesky needed (0 when none)."""

    X: np.ndarray
    Z: np.ndarray
    Y: np.ndarray
    nu_g: float
    nu_h: float
    jitter_g: float
    jitter_h: float

    def __post_init__(self) -> None:
        X = np.asarray(check_array(self.X, "X", ndim=2, kind="fiu"))
        Z = np.asarray(check_array(self.Z, "Z", shape=(X.shape[0], None), kind="fiu"))
        Y = np.asarray(check_array(self.Y, "Y", shape=(X.shape[0], None), kind="fiu"))
        for name, arr in (("X", X), ("Z", Z), ("Y", Y)):  # lists become arrays (frozen: no plain setattr)
            object.__setattr__(self, name, arr)
        if X.shape[0] < 2 or X.shape[1] == 0:
            raise ValueError(f"X must have at least two rows and one column, got shape {X.shape}")
        check_nu(self.nu_g, "nu_g"), check_nu(self.nu_h, "nu_h")
        check_number(self.jitter_g, "jitter_g", low=0), check_number(self.jitter_h, "jitter_h", low=0)

    def train(self, n_train: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(X, Z, Y)`` of the first ``n_train`` rows (the training pool's prefix, nested in N)."""
        n_train = check_int(n_train, "n_train", low=self.X.shape[1], high=len(self.X))
        return self.X[:n_train], self.Z[:n_train], self.Y[:n_train]

    def test(self, n_test: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(X, Z, Y)`` of the last ``n_test`` rows (fixed across N; disjoint from every training prefix
        as long as ``n_train + n_test <= n``)."""
        n_test = check_int(n_test, "n_test", low=1, high=len(self.X) - 1)
        return self.X[-n_test:], self.Z[-n_test:], self.Y[-n_test:]


def make_composition(
    n_total: int,
    *,
    nu_g: float,
    nu_h: float,
    d_in: int = 15,
    d_mid: int = 3,
    d_out: int = 20,
    seed: int,
) -> Composition:
    """Sample ``Y = h(g(X))`` at ``n_total`` points (official defaults d_in = 15, d_mid = 3, d_out = 20).

    ``n_total`` must be at least ``d_in + 1``: fewer points than input dimensions cannot identify g.
    """
    d_in = check_int(d_in, "d_in", low=1)
    n_total = check_int(n_total, "n_total", low=d_in + 1)
    d_mid, d_out = check_int(d_mid, "d_mid", low=1), check_int(d_out, "d_out", low=1)
    nu_g, nu_h = check_nu(nu_g, "nu_g"), check_nu(nu_h, "nu_h")
    rng = np.random.default_rng(check_seed(seed))
    X = rng.standard_normal((n_total, d_in))
    Z, jg = sample_gp(X, nu_g, d_mid, rng)
    Y, jh = sample_gp(Z, nu_h, d_out, rng)
    return Composition(X, Z, Y, nu_g, nu_h, jg, jh)
