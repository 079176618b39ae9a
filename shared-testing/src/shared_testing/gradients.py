"""Finite-difference gradient checks for numpy functions (torch users can pass a wrapper)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray


def finite_difference_grad(
    f: Callable[[NDArray[np.float64]], float], x: ArrayLike, eps: float = 1e-6
) -> NDArray[np.float64]:
    """Central-difference gradient of a scalar function ``f`` at ``x`` (any shape), in float64.

    Error is O(eps²) for smooth ``f``; cost is 2·x.size calls.
    """
    x = np.array(x, dtype=np.float64)
    grad = np.empty_like(x)
    flat, gflat = x.reshape(-1), grad.reshape(-1)
    for i in range(flat.size):
        old = flat[i]
        flat[i] = old + eps
        up = float(f(x))
        flat[i] = old - eps
        down = float(f(x))
        flat[i] = old
        gflat[i] = (up - down) / (2 * eps)
    return grad


def assert_gradient(
    f: Callable[[NDArray[np.float64]], float],
    grad: ArrayLike,
    x: ArrayLike,
    *,
    eps: float = 1e-6,
    rtol: float = 1e-5,
    atol: float = 1e-7,
) -> None:
    """Assert that ``grad`` (the analytic gradient at ``x``) matches central finite differences of ``f``."""
    expected = finite_difference_grad(f, x, eps)
    got = np.asarray(grad, dtype=np.float64)
    if got.shape != expected.shape:
        raise AssertionError(f"gradient shape {got.shape} != parameter shape {expected.shape}")
    np.testing.assert_allclose(
        got,
        expected,
        rtol=rtol,
        atol=atol,
        err_msg="analytic gradient disagrees with central finite differences",
    )
