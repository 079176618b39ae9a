"""Problem-1 relaxations against brute force, and the blocked computation against the dense one."""

from __future__ import annotations

import numpy as np
import pytest
from ols_certify import brute_force_p1, spectral_bound, triangle_bound, triangle_bound_blocked


def _grams(rng, n):
    A = rng.normal(size=(n, 3))
    B = rng.normal(size=(n, n))
    z, r = rng.normal(size=n), rng.standard_t(3, size=n)
    H = A @ np.linalg.pinv(A.T @ A) @ A.T
    return {
        "psd": A @ A.T,
        "indefinite": B + B.T,
        "cross": 0.5 * (np.outer(z, r) + np.outer(r, z)) * H,
        "cs": H**2,
        "diag": np.diag(z * r),
    }


@pytest.mark.parametrize("kind", ["psd", "indefinite", "cross", "cs", "diag"])
def test_bounds_dominate_the_brute_force_maximum(rng, kind):
    for n in (7, 11):
        G = _grams(rng, n)[kind]
        exact = np.array([brute_force_p1(G, k) for k in range(1, n)])
        tri, spec = triangle_bound(G), spectral_bound(G)
        assert np.all(tri >= exact - 1e-9)
        assert np.all(spec >= exact - 1e-9)
        assert tri[0] == pytest.approx(np.max(np.diag(G)))  # k = 1 is exact
        if kind == "diag":
            np.testing.assert_allclose(tri, exact, atol=1e-12)  # a diagonal G is solved exactly


def test_triangle_bound_equals_a_direct_transcription(rng):
    G = _grams(rng, 9)["indefinite"]
    n = 9
    ref = []
    for k in range(1, n):
        c = [G[i, i] + np.sort(np.delete(G[i], i))[::-1][: k - 1].sum() for i in range(n)]
        ref.append(np.sort(c)[::-1][:k].sum())
    np.testing.assert_allclose(triangle_bound(G), ref, rtol=1e-12)


@pytest.mark.parametrize(("n", "k_max", "block"), [(50, 49, 7), (120, 12, 32), (64, 1, 64)])
def test_blocked_equals_dense(rng, n, k_max, block):
    G = _grams(rng, n)["cross"]
    calls = []

    def rows(a, b):
        calls.append(b - a)
        return G[a:b]

    np.testing.assert_allclose(
        triangle_bound_blocked(rows, n, k_max, block), triangle_bound(G, k_max), rtol=1e-12
    )
    assert max(calls) <= block


def test_k_max_out_of_range_is_refused(rng):
    with pytest.raises(ValueError, match=r"k_max must be an integer in \[1, 4\]"):
        triangle_bound(np.eye(4), 5)
    with pytest.raises(ValueError, match="square"):
        triangle_bound(np.ones((3, 4)))
