"""The official protocol's structure: component counts, exact copies, anchor layout, pairing, determinism."""

from __future__ import annotations

import numpy as np
import pytest
from synthdata_ggmi.simulation import Protocol, draw_world, kl_gaps, sweep


def test_generator_has_k_j_l_components_with_exact_copies():
    p = Protocol(K=2, J=3, L=4)
    w = draw_world(p, seed=0, repeat=0)
    M, D = w.generator, w.truth
    assert M.n_components == 9 and D.n_components == 5
    assert M.weights.sum() == pytest.approx(1.0) and np.all(M.weights == 1 / 9)
    assert np.array_equal(M.means[2:5], D.means[2:5]) and np.array_equal(M.covs[2:5], D.covs[2:5])
    for k in range(2):  # the K part is the anchor data's own mean and covariance (+ 1e-6 I)
        Xk = w.anchor[w.labels == k]
        assert M.means[k] == pytest.approx(Xk.mean(0))
        assert M.covs[k] == pytest.approx(np.cov(Xk, rowvar=False) + 1e-6 * np.eye(2))
    assert w.synthetic.shape == (200, 2)


def test_anchor_rows_and_labels():
    w = draw_world(Protocol(K=3, N_k=7), seed=1, repeat=2)
    assert w.anchor.shape == (21, 2)
    assert np.array_equal(w.labels, np.repeat([0, 1, 2], 7))


def test_no_gain_generator_and_curation():
    w = draw_world(Protocol(J=3, copy_gain=False), seed=0, repeat=0)
    assert w.generator.n_components == 2 + 2
    c = draw_world(Protocol(noise=1.0, curate=0.5), seed=0, repeat=0)
    assert c.synthetic.shape == (200, 2)


def test_sweep_is_paired_and_deterministic():
    p = Protocol()
    a = draw_world(p, seed=3, repeat=1, pool=(2, 8, 2))
    b = draw_world(Protocol(J=8), seed=3, repeat=1, pool=(2, 8, 2))
    assert np.array_equal(a.anchor, b.anchor) and np.array_equal(a.truth.means[:4], b.truth.means[:4])
    s1 = sweep("J", (1, 2), repeats=1, seed=5, methods=("mc", "histogram"), n_eval=100, rounds=2)
    s2 = sweep("J", (1, 2), repeats=1, seed=5, methods=("mc", "histogram"), n_eval=100, rounds=2)
    for m in ("mc", "histogram"):
        assert np.array_equal(s1.gap(m), s2.gap(m))


def test_histogram_refused_in_high_dimension_and_bad_protocols():
    w = draw_world(Protocol(d=4), seed=0, repeat=0)
    with pytest.raises(ValueError, match="d <= 3"):
        kl_gaps(w, Protocol(d=4), seed=0, repeat=0, methods=("histogram",))
    assert np.isfinite(
        kl_gaps(w, Protocol(d=4), seed=0, repeat=0, methods=("mc",), n_eval=50, rounds=2)["mc"]
    ).all()
    with pytest.raises(ValueError, match="K"):
        Protocol(K=0)
    with pytest.raises(ValueError, match="n_samples"):
        Protocol(J=10, L=10, n_samples=15)
    with pytest.raises(ValueError, match="param"):
        sweep("N", (1,), repeats=1)
