"""Generalised Householder algebra: spectra, orthogonality, permutations as products of reflections."""

from __future__ import annotations

import itertools

import pytest
import torch
from lrnn_state_tracking.householder import (
    gh,
    gh_product,
    permutation_as_reflections,
    permutation_matrix,
    reflection_for_transposition,
)

pytestmark = pytest.mark.usefixtures("torch_one_thread")


@pytest.mark.parametrize("beta", [0.0, 0.3, 1.0, 1.7, 2.0])
def test_gh_spectrum_is_one_and_one_minus_beta(beta, torch_gen):
    v = torch.randn(5, generator=torch_gen, dtype=torch.float64)
    eig = torch.linalg.eigvalsh(gh(beta, v))  # G is symmetric
    expected = torch.sort(torch.tensor([1.0] * 4 + [1.0 - beta], dtype=torch.float64)).values
    torch.testing.assert_close(eig, expected, atol=1e-12, rtol=0)
    assert eig.min() >= -1 - 1e-12 and eig.max() <= 1 + 1e-12


def test_gh_beta_two_is_an_orthogonal_reflection_and_beta_one_a_projection(torch_gen):
    v = torch.randn(6, generator=torch_gen, dtype=torch.float64)
    r = gh(2.0, v)
    torch.testing.assert_close(r @ r.T, torch.eye(6, dtype=torch.float64), atol=1e-12, rtol=0)
    assert torch.linalg.det(r) == pytest.approx(-1.0, abs=1e-12)
    p = gh(1.0, v)
    torch.testing.assert_close(p @ p, p, atol=1e-12, rtol=0)  # idempotent: a "reset" of the v direction
    torch.testing.assert_close(p @ v, torch.zeros(6, dtype=torch.float64), atol=1e-12, rtol=0)


def test_gh_product_order_first_factor_acts_first(torch_gen):
    vs = torch.randn(3, 4, generator=torch_gen, dtype=torch.float64)
    betas = torch.tensor([0.5, 2.0, 1.3], dtype=torch.float64)
    expected = gh(1.3, vs[2]) @ gh(2.0, vs[1]) @ gh(0.5, vs[0])
    torch.testing.assert_close(gh_product(betas, vs), expected, atol=1e-12, rtol=0)


def test_two_reflections_make_a_rotation_by_twice_their_angle():
    # Counting mod 3 needs a rotation by 2π/3: the product of reflections across lines 60° apart.
    n1 = torch.tensor([1.0, 0.0], dtype=torch.float64)
    n2 = torch.tensor([-0.5, 3**0.5 / 2], dtype=torch.float64)  # normal rotated by 120°
    rot = gh_product(torch.tensor([2.0, 2.0], dtype=torch.float64), torch.stack([n1, n2]))
    eig = torch.linalg.eigvals(rot)
    assert torch.allclose(eig.abs(), torch.ones(2, dtype=torch.float64))
    torch.testing.assert_close(
        torch.linalg.matrix_power(rot, 3), torch.eye(2, dtype=torch.float64), atol=1e-12, rtol=0
    )
    assert not torch.allclose(rot, torch.eye(2, dtype=torch.float64))


@pytest.mark.parametrize("n", [2, 3, 4])
def test_every_permutation_is_a_product_of_at_most_n_minus_1_reflections(n):
    for perm in itertools.permutations(range(n)):
        swaps = permutation_as_reflections(perm)
        assert len(swaps) <= n - 1
        prod = torch.eye(n, dtype=torch.float64)
        for i, j in swaps:
            prod = reflection_for_transposition(i, j, n) @ prod
        torch.testing.assert_close(prod, permutation_matrix(perm), atol=1e-12, rtol=0)
        # and it acts as the permutation: e_k -> e_perm[k]
        for k in range(n):
            assert int(torch.argmax(prod[:, k])) == perm[k]


def test_bad_inputs():
    with pytest.raises(ValueError, match="non-zero"):
        gh(1.0, torch.zeros(3))
    with pytest.raises(TypeError, match=r"torch\.Tensor"):
        gh(1.0, [1.0, 0.0])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="distinct"):
        reflection_for_transposition(1, 1, 3)
    with pytest.raises(ValueError, match=r"permutation of 0\.\.2"):
        permutation_matrix([0, 0, 2])
    with pytest.raises(ValueError, match="expected betas"):
        gh_product(torch.ones(2), torch.ones(3, 4))
