"""RSA scores, noise ceilings and permutation tests against rsatoolbox, scipy and brute force."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from video_brain_rsa.dissimilarity import rdm, upper
from video_brain_rsa.rsa import (
    average_ranks,
    compare_models,
    kendall_tau_a,
    noise_ceiling,
    null_scores,
    permutation_test,
    rsa_score,
)

rsatoolbox = pytest.importorskip("rsatoolbox")


def _subjects(n=5, s=14, noise=1.0, seed=0):
    rng = np.random.default_rng(seed)
    base = rng.standard_normal((s, 20))
    return np.stack([rdm(base + noise * rng.standard_normal((s, 20)), pca=None) for _ in range(n)]), base


def _rsa_rdms(stack):
    return rsatoolbox.rdm.RDMs(upper(stack))


def test_spearman_and_tau_a_equal_rsatoolbox():
    brain, base = _subjects()
    model = rdm(base + np.random.default_rng(9).standard_normal(base.shape), pca=None)
    for ours, theirs in (("spearman", "spearman"), ("kendall", "tau-a")):
        sc = rsa_score(model, brain, method=ours)
        ref = rsatoolbox.rdm.compare(_rsa_rdms(model[None]), _rsa_rdms(brain), method=theirs)[0]
        np.testing.assert_allclose(sc.per_subject, ref, atol=1e-10)
        assert sc.mean == pytest.approx(ref.mean()) and sc.sem == pytest.approx(stats.sem(ref))


def test_tau_a_counts_ties_as_neither():
    x, y = np.array([1.0, 1.0, 2.0, 3.0]), np.array([1.0, 2.0, 2.0, 3.0])
    s = sum(np.sign(x[i] - x[j]) * np.sign(y[i] - y[j]) for i in range(4) for j in range(i + 1, 4))
    assert kendall_tau_a(x, y) == pytest.approx(s / 6)


def test_average_ranks_equal_scipy_with_ties():
    v = np.random.default_rng(1).integers(0, 4, (3, 40)).astype(float)
    np.testing.assert_array_equal(average_ranks(v), stats.rankdata(v, axis=-1))


def test_spearman_invariances_and_strict_upper_triangle():
    brain, base = _subjects()
    m = rdm(base, pca=None)
    s0 = rsa_score(m, brain).mean
    assert rsa_score(np.exp(3 * m) - 1, brain).mean == pytest.approx(s0, abs=1e-12)  # monotone transform
    assert rsa_score(m, brain[:1]).mean == pytest.approx(stats.spearmanr(upper(m), upper(brain[0]))[0])
    assert rsa_score(brain[0], brain[:1]).mean == pytest.approx(1.0)
    assert rsa_score(-brain[0], brain[:1]).mean == pytest.approx(-1.0)
    diagonal = m + 7.0 * np.eye(len(m))  # only the strict upper triangle is read
    assert rsa_score(diagonal, brain).mean == pytest.approx(s0, abs=1e-12)
    lower = m.copy()
    lower[np.tril_indices(len(m), k=-1)] = 7.0  # an asymmetric matrix is refused, not half-read
    with pytest.raises(ValueError, match="model_rdm must be symmetric"):
        rsa_score(lower, brain)


def test_noise_ceilings_net2brain_brute_force_and_rsatoolbox():
    brain, _ = _subjects(6, 12, 1.5)
    v = upper(brain)
    lo = [stats.spearmanr(v[s], np.delete(v, s, 0).mean(0))[0] ** 2 for s in range(6)]
    hi = [stats.spearmanr(v[s], v.mean(0))[0] ** 2 for s in range(6)]
    lnc, unc = noise_ceiling(brain)
    assert (lnc, unc) == pytest.approx(
        (np.sqrt(np.mean(lo)), np.sqrt(np.mean(hi)))
    )  # Net2Brain: sqrt(mean rho^2)
    ref = rsatoolbox.inference.boot_noise_ceiling(_rsa_rdms(brain), method="spearman")
    assert noise_ceiling(brain, convention="rsatoolbox") == pytest.approx(ref, abs=1e-10)
    assert lnc <= unc
    same = np.repeat(brain[:1], 4, axis=0)
    assert noise_ceiling(same) == pytest.approx((1.0, 1.0))
    group = brain.mean(axis=0)  # the group-mean RDM scores between the ceilings
    lnc_r, unc_r = noise_ceiling(brain, convention="rsatoolbox")
    assert lnc_r <= rsa_score(group, brain).mean <= unc_r + 1e-12


def test_vectorised_null_equals_naive_and_identity_reproduces_observed():
    brain, base = _subjects(3, 10)
    m = rdm(base + np.random.default_rng(3).standard_normal(base.shape), pca=None)
    perms = np.stack([np.random.default_rng(k).permutation(10) for k in range(8)] + [np.arange(10)])
    naive = [np.mean([stats.spearmanr(upper(m[p][:, p]), upper(b))[0] for b in brain]) for p in perms]
    np.testing.assert_allclose(null_scores(m, brain, perms), naive, atol=1e-12)
    assert null_scores(m, brain, perms[-1:])[0] == pytest.approx(rsa_score(m, brain).mean)


def test_permutation_null_is_centred_and_p_uniform_under_h0():
    rng = np.random.default_rng(5)
    brain = np.stack([rdm(rng.standard_normal((12, 6)), pca=None) for _ in range(3)])
    res = permutation_test(rdm(rng.standard_normal((12, 6)), pca=None), brain, n_perm=2000, seed=1)
    assert abs(res.null.mean()) < 3 * res.null.std() / np.sqrt(2000)
    ps = [permutation_test(rdm(rng.standard_normal((8, 4)), pca=None), brain[:, :8, :8], n_perm=40, seed=k).p
          for k in range(200)]  # fmt: skip
    assert stats.kstest(ps, "uniform").pvalue > 1e-3


def test_signal_is_significant_and_compare_models_orders_them():
    brain, base = _subjects(5, 16, 0.5)
    good, bad = rdm(base, pca=None), rdm(np.random.default_rng(8).standard_normal(base.shape), pca=None)
    assert permutation_test(good, brain, n_perm=200).p == 0.0
    assert permutation_test(good, brain, n_perm=200, correction="plus-one").p == pytest.approx(1 / 201)
    cmp = compare_models(good, bad, brain, n_perm=200)
    assert cmp.observed > 0 and cmp.p < 0.05


def test_bad_inputs_name_the_argument():
    brain, base = _subjects(3, 10)
    m = rdm(base, pca=None)
    with pytest.raises(ValueError, match="same stimuli"):
        rsa_score(m[:8, :8], brain)
    with pytest.raises(ValueError, match="rdm_a and rdm_b"):
        compare_models(m, m[:9, :9], brain)
    with pytest.raises(ValueError, match="constant"):
        rsa_score(np.ones((10, 10)) - np.eye(10), brain)
    with pytest.raises(ValueError, match="model_rdm must be a square"):
        rsa_score(np.zeros((10, 9)), brain)
    with pytest.raises(ValueError, match="brain_rdms must be finite"):
        rsa_score(m, np.full_like(brain, np.nan))
    with pytest.raises(ValueError, match="at least 2 subjects"):
        noise_ceiling(brain[:1])
    with pytest.raises(ValueError, match="n_perm"):
        permutation_test(m, brain, n_perm=0)
    with pytest.raises(ValueError, match="method"):
        rsa_score(m, brain, method="pearson")
    with pytest.raises(TypeError, match="brain_rdms"):
        rsa_score(m, "brains")


def test_rank_helpers_refuse_bad_input():
    with pytest.raises(ValueError, match="y must be an array of shape"):
        kendall_tau_a(np.arange(4.0), np.arange(3.0))
    with pytest.raises(ValueError, match="at least 2 entries"):
        kendall_tau_a(np.ones(1), np.ones(1))
    with pytest.raises(ValueError, match="v must be finite"):
        average_ranks(np.array([1.0, np.nan]))
