"""RDMs against scipy and rsatoolbox, and their properties."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.distance import pdist, squareform
from video_brain_rsa.dissimilarity import pca_reduce, rdm, upper

rsatoolbox = pytest.importorskip("rsatoolbox")


def _x(s=12, f=30, seed=0):
    return np.random.default_rng(seed).standard_normal((s, f))


@pytest.mark.parametrize("metric", ["correlation", "euclidean", "cosine"])
def test_rdm_equals_scipy_and_rsatoolbox(metric):
    x = _x()
    d = rdm(x, metric, pca=None)
    np.testing.assert_allclose(d, squareform(pdist(x, metric)), atol=1e-12)
    ds = rsatoolbox.data.Dataset(x)
    method = {"correlation": "correlation", "euclidean": "euclidean", "cosine": None}[metric]
    if method is not None:
        ref = rsatoolbox.rdm.calc_rdm(ds, method=method).dissimilarities[0]
        # rsatoolbox's "euclidean" is the squared distance per feature (its documented normalisation)
        ref = np.sqrt(ref * x.shape[1]) if metric == "euclidean" else ref
        np.testing.assert_allclose(upper(d), ref, atol=1e-10)


def test_rdm_properties_and_affine_invariance():
    x = _x(20, 50, 1)
    d = rdm(x, pca=None)
    assert np.allclose(d, d.T) and np.all(np.diag(d) == 0) and d.min() >= 0 and d.max() <= 2
    rng = np.random.default_rng(2)
    scaled = x * rng.uniform(0.5, 3, (20, 1)) + rng.standard_normal((20, 1))  # per-stimulus affine
    np.testing.assert_allclose(rdm(scaled, pca=None), d, atol=1e-12)


def test_pca_keeps_at_most_s_minus_1_components_and_warns_above():
    x = _x(102, 300, 3)
    assert pca_reduce(x, 100).shape == (102, 100)
    with pytest.warns(UserWarning, match="101 informative"):
        z = pca_reduce(x, 200)
    assert z.shape == (102, 101)
    # all 101 components keep every distance between centred stimuli
    np.testing.assert_allclose(rdm(x, "euclidean", pca=None), squareform(pdist(z)), atol=1e-9)


def test_upper_is_the_strict_row_major_triangle():
    d = np.arange(16.0).reshape(4, 4)
    assert upper(d).tolist() == [1, 2, 3, 6, 7, 11]


def test_bad_inputs_name_the_argument():
    x = _x(6, 5)
    x[2] = 1.5
    with pytest.raises(ValueError, match="constant stimulus row"):
        rdm(x, pca=None)
    with pytest.raises(ValueError, match="at least 4 stimuli"):
        rdm(_x(3, 5))
    with pytest.raises(ValueError, match="features must be finite"):
        rdm(np.full((5, 3), np.nan))
    with pytest.raises(ValueError, match="metric"):
        rdm(_x(), "manhattan")
    with pytest.raises(TypeError, match="features"):
        rdm("abc")
    with pytest.raises(ValueError, match="pca"):
        rdm(_x(), pca=0)
    with pytest.raises(ValueError, match="rdm must be a square"):
        upper(np.zeros((3, 4)))
