"""Layer scoring, LOSO layer selection and the hand-crafted baselines."""

from __future__ import annotations

import numpy as np
import pytest
from video_brain_rsa.data import render_clips
from video_brain_rsa.dissimilarity import rdm
from video_brain_rsa.rsa import rsa_score
from video_brain_rsa.scoring import LayerScore, best_layer, hand_crafted_rdms, layerwise_scores


def test_layerwise_scores_match_rsa_and_depths():
    rng = np.random.default_rng(0)
    base = rng.standard_normal((12, 15))
    brain = {"A": np.stack([rdm(base + rng.standard_normal(base.shape), pca=None) for _ in range(4)])}
    layers = {"l0": rng.standard_normal((12, 40)), "l1": base, "l2": base + rng.standard_normal(base.shape)}
    recs = layerwise_scores(layers, brain, pca=None)
    assert [r.relative_depth for r in recs] == [0.0, 0.5, 1.0]
    assert recs[1].mean == pytest.approx(rsa_score(rdm(base, pca=None), brain["A"]).mean)
    assert best_layer(recs, "A", selection="in-sample").layers == ("l1",)


def test_loso_scores_each_subject_at_a_layer_picked_without_it():
    per = np.array([[0.9, 0.0, 0.0], [0.1, 0.5, 0.5]])  # layers x subjects
    recs = [LayerScore(f"l{k}", k, k, "A", float(p.mean()), 0.0, p) for k, p in enumerate(per)]
    out = best_layer(recs, "A")
    # subject 0: others favour l1 (0.5 vs 0) -> 0.1; subjects 1, 2: others favour l0 (0.45 vs 0.3) -> 0
    assert out.layers == ("l1", "l0", "l0") and out.score == pytest.approx(0.1 / 3)
    assert best_layer(recs, "A", selection="in-sample").score == pytest.approx(1.1 / 3)


def test_hand_crafted_rdms_shapes_and_labels():
    c = render_clips(10, seed=0)
    h = hand_crafted_rdms(c.video, c.action, c.shape)
    assert set(h) == {"pixels", "motion-energy", "label-action", "label-object"}
    assert all(d.shape == (10, 10) and np.allclose(d, d.T) for d in h.values())
    assert h["label-action"][0, 5] == 0 and h["label-action"][0, 1] == 1


def test_bad_inputs_name_the_argument():
    with pytest.raises(ValueError, match="records must hold at least one"):
        best_layer([], "B")
    with pytest.raises(ValueError, match="selection"):
        best_layer([], "A", selection="max")
    with pytest.raises(ValueError, match="layers must hold"):
        layerwise_scores({}, {"A": np.zeros((2, 5, 5))})
    with pytest.raises(ValueError, match=r"brain_rdms\['A'\] must be an array of shape"):
        layerwise_scores({"l": np.ones((5, 3))}, {"A": np.zeros((5, 5))})
    c = render_clips(6, seed=0)
    with pytest.raises(ValueError, match="action"):
        hand_crafted_rdms(c.video, c.action[:3], c.shape)
