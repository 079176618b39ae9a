"""The shared method battery over the registry, and what distinguishes the models."""

from __future__ import annotations

import numpy as np
import pytest
from shared_testing.battery import MethodBattery, MethodCase
from video_brain_rsa.data import render_clips
from video_brain_rsa.methods import METHODS, run_method
from video_brain_rsa.models import build_model

CLIPS = render_clips(12, seed=0, frames=4, size=8)


def small_inputs():
    return {"train_video": CLIPS.video, "train_labels": CLIPS.action, "stimuli": CLIPS.video[:6], "steps": 2,
            "width": 2, "batch_size": 4}  # fmt: skip


BAD = {"steps": -1, "lr": -1.0, "width": 0, "train_labels": np.full(12, -1), "stimuli": np.zeros((3, 4))}


class TestMethods(MethodBattery):
    @classmethod
    def cases(cls):
        return [MethodCase(name, call=info.call, inputs=small_inputs, bad_inputs=BAD, device_arg="device")
                for name, info in METHODS.items()]  # fmt: skip


def test_every_layer_is_read_and_untrained_copies_share_the_init():
    run = run_method("conv3d", **small_inputs(), seed=4)
    assert list(run.features) == ["conv1", "conv2", "conv3", "pool", "fc"]
    assert all(f.shape[0] == 6 and np.isfinite(f).all() for f in run.features.values())
    a = build_model("conv3d", 5, seed=4, width=2)
    b = run_method("conv3d", **{**small_inputs(), "steps": 0}, seed=4).model
    for p, q in zip(a.parameters(), b.parameters(), strict=True):
        assert (p == q).all()


def test_frame_model_ignores_frame_order_and_video_models_do_not():
    x = CLIPS.video[:6]
    rev = x[:, ::-1].copy()
    f = run_method("frame-cnn", **{**small_inputs(), "stimuli": rev}, seed=1).features["pool"]
    g = run_method("frame-cnn", **small_inputs(), seed=1).features["pool"]
    np.testing.assert_allclose(f, g, atol=1e-5)
    h = run_method("conv3d", **{**small_inputs(), "stimuli": rev}, seed=1).features["conv1"]
    k = run_method("conv3d", **small_inputs(), seed=1).features["conv1"]
    assert np.abs(h - k).max() > 1e-3


def test_unknown_method_lists_the_registry():
    with pytest.raises(ValueError, match="conv3d"):
        run_method("transformer", **small_inputs(), seed=0)
