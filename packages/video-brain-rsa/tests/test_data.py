"""The rendered clips and the synthetic subjects."""

from __future__ import annotations

import numpy as np
import pytest
from video_brain_rsa.data import ACTIONS, make_subjects, motion_energy, noise_for_ceiling, render_clips
from video_brain_rsa.dissimilarity import rdm_kernel
from video_brain_rsa.rsa import noise_ceiling


def test_clips_are_balanced_bounded_and_seeded():
    c = render_clips(40, seed=3)
    assert c.video.shape == (40, 8, 3, 16, 16) and c.video.dtype == np.float32
    assert c.video.min() >= 0 and c.video.max() <= 1
    assert np.bincount(c.action).tolist() == [8] * 5 and np.bincount(c.shape).tolist() == [10] * 4
    np.testing.assert_array_equal(render_clips(40, seed=3).video, c.video)


def test_motion_energy_is_not_a_function_of_the_action():
    c = render_clips(200, seed=1)
    e = motion_energy(c.video).mean(axis=1)
    within = np.mean([e[c.action == a].var() for a in range(len(ACTIONS))])
    assert within > 0.2 * e.var()  # speeds vary within each action: energy overlaps across actions
    first = np.mean((c.video[0, 1] - c.video[0, 0]) ** 2.0)
    np.testing.assert_allclose(motion_energy(c.video[:2])[0, 0], first, rtol=1e-6)


def test_noise_for_ceiling_hits_its_target_on_a_fresh_draw():
    c = render_clips(40, seed=2)
    sd = noise_for_ceiling(c, "action", target=0.5, n_subjects=6, voxels=40, seed=0, iters=12)
    resp = make_subjects(c, noise={"action": sd}, n_subjects=6, voxels=40, seed=1)["action"]
    unc = noise_ceiling(np.stack([rdm_kernel(r, "correlation") for r in resp]))[1]
    assert abs(unc - 0.5) < 0.08


def test_bad_inputs_name_the_argument():
    c = render_clips(8, seed=0)
    with pytest.raises(ValueError, match="unknown ROIs"):
        make_subjects(c, noise={"V4": 1.0}, seed=0)
    with pytest.raises(ValueError, match="noise\\['MT'\\]"):
        make_subjects(c, noise={"MT": -1.0}, seed=0)
    with pytest.raises(ValueError, match="n must be"):
        render_clips(0, seed=0)
    with pytest.raises(ValueError, match="target"):
        noise_for_ceiling(c, "MT", target=1.5, seed=0)
    with pytest.raises(ValueError, match="roi"):
        noise_for_ceiling(c, "V4", seed=0)
