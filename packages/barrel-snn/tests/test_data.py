"""Synthetic sweeps and the paper's spike encoding."""

from __future__ import annotations

import numpy as np
import pytest
from barrel_snn.data import (
    deprive,
    encode_spikes,
    make_synthetic_sweeps,
    spike_probabilities,
    whisker_pad,
)


@pytest.fixture(scope="module")
def sweeps():
    return make_synthetic_sweeps(12, seed=3, frames=40)


def test_shapes_labels_and_contacts(sweeps):
    force, torque, labels = sweeps
    assert force.shape == torque.shape == (12, 1, 40, 31, 3, 3)
    assert sorted(np.bincount(labels).tolist()) == [4, 4, 4]
    assert (np.linalg.norm(force, axis=-1) > 0).any()  # objects touch whiskers
    base, pts = whisker_pad()
    # torque is lever x force: orthogonal to the force at every point
    dot = (torque * force).sum(-1)
    assert np.abs(dot).max() < 1e-2 * (np.abs(torque).max() * np.abs(force).max() + 1)
    assert base.shape == (31, 3) and pts.shape == (31, 3, 3)


def test_probabilities_are_sigmoid_of_log_magnitude():
    force = np.zeros((1, 1, 3, 31, 3, 3))
    force[0, 0, 0, 0, 0] = [3.0, 4.0, 0.0]  # |F| = 5
    p = spike_probabilities(force, c=2.0)
    assert p.shape == (1, 3, 93)
    assert p[0, 0, 0] == pytest.approx(1 / (1 + np.exp(-(np.log(5.0) - 2.0))))
    assert p[0, 1, 0] == pytest.approx(1 / (1 + np.exp(-(np.log(1e-5) - 2.0))))  # zero -> 1e-5


def test_encoded_rates_match_probabilities_within_binomial_error(sweeps, rng):
    force, torque, _ = sweeps
    xf, xt = encode_spikes(force, torque, rng, dt_rep=25)
    assert xf.shape == (12, 40 * 25, 93)
    for x, arr, c in ((xf, force, 2.0), (xt, torque, 4.0)):
        p = spike_probabilities(arr, c)  # (12, 40, 93)
        rate = x.reshape(12, 40, 25, 93).mean(2)
        se = np.sqrt(p * (1 - p) / 25)
        z = (rate - p)[se > 0.02] / se[se > 0.02]
        assert z.size > 50 and np.abs(z.mean()) < 0.2 and 0.7 < z.std() < 1.3


def test_deprived_whiskers_are_silent(sweeps, rng):
    force, torque, _ = sweeps
    f, t = deprive(force, torque, [0, 5, 30])
    assert np.all(force[:, :, :, 5] == f[:, :, :, 5] * 0 + force[:, :, :, 5])  # original untouched
    xf, xt = encode_spikes(f, t, rng, dt_rep=5)
    ch = np.array([3 * w + k for w in (0, 5, 30) for k in range(3)])
    assert xf[..., ch].sum() + xt[..., ch].sum() <= 2  # p ~ 1e-6 per bin
    assert xf.sum() > 0


def test_bad_inputs(sweeps, rng):
    force, torque, _ = sweeps
    with pytest.raises(ValueError, match=r"whisker indices must be in 0\.\.30"):
        deprive(force, torque, [31])
    with pytest.raises(ValueError, match=r"whisker indices must be in 0\.\.30"):
        deprive(force, torque, [-1])
    with pytest.raises(TypeError, match="must be integers"):
        deprive(force, torque, [1.5])
    with pytest.raises(ValueError, match=r"force must have shape \(N, variants, frames, 31, 3, 3\)"):
        encode_spikes(force[..., 0], torque[..., 0], rng)
    with pytest.raises(ValueError, match="shapes differ"):
        encode_spikes(force, torque[:3], rng)
    with pytest.raises(ValueError, match="dt_rep must be an integer >= 1"):
        encode_spikes(force, torque, rng, dt_rep=0)
    with pytest.raises(TypeError, match="rng must be a Generator"):
        encode_spikes(force, torque, 0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="n must be an integer >= 1"):
        make_synthetic_sweeps(0)
