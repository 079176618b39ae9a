"""Discrete identities against brute force and scipy; the definitions' arithmetic."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import entropy as sp_entropy
from synthdata_ggmi.definitions import ggmi, information_gain, mi_generalization_bound
from synthdata_ggmi.info import (
    conditional_mi,
    entropy,
    kl,
    markov_chain,
    mutual_information,
    pinsker_bound,
    tv,
    tv_decomposition,
)


def brute_mi(P):
    px, py = P.sum(1), P.sum(0)
    return sum(
        P[i, j] * np.log(P[i, j] / (px[i] * py[j]))
        for i in range(P.shape[0])
        for j in range(P.shape[1])
        if P[i, j] > 0
    )


def test_entropy_kl_against_scipy():
    rng = np.random.default_rng(0)
    p, q = rng.dirichlet(np.ones(7), size=2)
    assert entropy(p) == pytest.approx(sp_entropy(p)) and kl(p, q) == pytest.approx(sp_entropy(p, q))
    assert kl(p, p) == 0.0 and kl(np.array([0.5, 0.5]), np.array([1.0, 0.0])) == np.inf


def test_mutual_information_identities():
    rng = np.random.default_rng(1)
    for _ in range(20):
        P = rng.dirichlet(np.full(12, 0.5)).reshape(3, 4)
        mi = mutual_information(P)
        assert mi == pytest.approx(brute_mi(P), abs=1e-12) and mi >= 0
        assert mi == pytest.approx(entropy(P.sum(1)) + entropy(P.sum(0)) - entropy(P), abs=1e-12)
    p = rng.dirichlet(np.ones(5))
    assert mutual_information(np.diag(p)) == pytest.approx(entropy(p))  # I(X; X) = H(X)
    assert mutual_information(np.outer(p, p)) == pytest.approx(0.0, abs=1e-12)


def test_conditional_mi_brute_force_and_chain():
    rng = np.random.default_rng(2)
    P = rng.dirichlet(np.ones(24)).reshape(2, 3, 4)  # axes X, Y, Z
    ref = 0.0
    for z in range(4):
        pz = P[:, :, z].sum()
        ref += pz * brute_mi(P[:, :, z] / pz)
    assert conditional_mi(P, 0, 1, 2) == pytest.approx(ref, abs=1e-12)
    chain = markov_chain(
        rng.dirichlet(np.ones(3)), rng.dirichlet(np.ones(4), size=3), rng.dirichlet(np.ones(5), size=4)
    )
    assert conditional_mi(chain, 0, 2, 1) == pytest.approx(0.0, abs=1e-12)  # A -> P -> G: A indep. G given P


def test_dpi_triangle_pinsker_on_random_tables():
    rng = np.random.default_rng(3)
    for _ in range(200):
        P = markov_chain(
            rng.dirichlet(np.ones(4)),
            rng.dirichlet(np.full(3, 0.3), size=4),
            rng.dirichlet(np.full(5, 0.3), size=3),
        )
        assert mutual_information(P.sum(1)) <= mutual_information(P.sum(2)) + 1e-12
        D, DM, Dg = rng.dirichlet(np.ones(6), size=3)
        t = tv_decomposition(D, DM, Dg)
        assert t["slack"] >= -1e-12 and t["total"] == pytest.approx(tv(D, Dg))
        assert tv(D, DM) <= pinsker_bound(D, DM) + 1e-12


def test_definitions():
    rng = np.random.default_rng(4)
    A, B = rng.dirichlet(np.ones(9)).reshape(3, 3), rng.dirichlet(np.ones(9)).reshape(3, 3)
    assert ggmi(A, B) == pytest.approx(mutual_information(A) - mutual_information(B))
    # h independent of the prompt, the output a copy of (p, h): Delta I = I(h; g) - 0 = H(h)
    ph, pp = np.array([0.3, 0.7]), np.array([0.5, 0.5])
    P = np.zeros((2, 2, 4))
    for h in range(2):
        for p in range(2):
            P[h, p, 2 * h + p] = ph[h] * pp[p]
    assert information_gain(P) == pytest.approx(entropy(ph))
    assert mi_generalization_bound(0.5, 100, sigma=2.0) == pytest.approx(np.sqrt(2 * 4 * 0.5 / 100))


def test_bad_tables():
    with pytest.raises(ValueError, match="p must"):
        entropy(np.array([0.5, 0.6]))
    with pytest.raises(ValueError, match="empty"):
        entropy(np.array([]))
    with pytest.raises(ValueError, match="channel_gen"):
        markov_chain(np.array([1.0]), np.array([[1.0]]), np.array([[0.5, 0.6]]))
    with pytest.raises(ValueError, match="mi"):
        mi_generalization_bound(-1.0, 10)
