"""Forward-hook extraction, tuple splitting, frame averaging and mmaction-style clip sampling."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import nn
from video_brain_rsa.features import extract, sample_clips
from video_brain_rsa.models import build_model


class TwoPath(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.a = nn.Linear(6, 3)
        self.b = nn.Linear(6, 2)

    def forward(self, x):
        h = x.mean(dim=(1, 3, 4))  # (B, C) from (B, T, C, H, W)
        return self.a(h), self.b(h)


class Split(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.pair = TwoPath()

    def forward(self, x):
        return self.pair(x)[0]


def test_one_matrix_per_layer_and_tuple_outputs_split(device):
    clips = np.random.default_rng(0).random((5, 4, 6, 3, 3)).astype(np.float32)
    model = Split().to(device)
    out = extract(model, clips, ["pair", "pair.a"], device=device)
    assert set(out) == {"pair_0", "pair_1", "pair.a"}
    assert out["pair_0"].shape == (5, 3) and out["pair_1"].shape == (5, 2)
    with torch.no_grad():
        ref = model.pair.a(torch.as_tensor(clips, device=device).mean(dim=(1, 3, 4))).cpu().numpy()
    np.testing.assert_allclose(out["pair.a"], ref, atol=1e-6)


def test_frame_models_average_layer_outputs_over_frames(device):
    clips = np.random.default_rng(1).random((3, 4, 3, 8, 8)).astype(np.float32)
    model = build_model("frame-cnn", 4, seed=0, width=2, device=device)
    feats = extract(model, clips, ["conv1"], mode="frames", device=device)
    with torch.no_grad():
        x = torch.as_tensor(clips.reshape(12, 3, 8, 8), device=device)
        per_frame = model.conv1((x - 0.5) * 4.0).reshape(3, 4, -1).mean(dim=1).cpu().numpy()
    np.testing.assert_allclose(feats["conv1"], per_frame, atol=1e-5)


def test_sample_clips_repeats_the_last_frame_and_spreads_clips():
    video = np.arange(10)[None, :, None] * np.ones((2, 1, 1))
    short = sample_clips(video, clip_len=4, interval=4)  # one clip of span 16 > 10 frames
    assert short.shape == (2, 1, 4, 1) and short[0, 0, :, 0].tolist() == [0, 4, 8, 9]
    many = sample_clips(video, clip_len=2, interval=2)  # ceil(10 / 4) = 3 clips
    assert many.shape == (2, 3, 2, 1) and many[0, :, 0, 0].tolist() == [0, 3, 6]


def test_running_mean_weighs_later_clips_more(device):
    clips = np.arange(6, dtype=np.float32)[None, :, None, None, None] * np.ones((1, 1, 6, 1, 1), np.float32)
    model = TwoPath().to(device)
    plain = extract(model, clips, ["a"], clip_len=2, interval=1, device=device)["a"]
    running = extract(model, clips, ["a"], clip_len=2, interval=1, aggregate="running", device=device)["a"]
    with torch.no_grad():
        f = [model.a(torch.full((1, 6), v, device=device)).cpu().numpy() for v in (0.5, 2.5, 4.5)]
    np.testing.assert_allclose(plain, np.mean(f, axis=0), atol=1e-5)
    np.testing.assert_allclose(running, ((f[0] + f[1]) / 2 + f[2]) / 2, atol=1e-5)


def test_bad_inputs_name_the_argument():
    model = Split()
    clips = np.zeros((2, 4, 6, 3, 3), np.float32)
    with pytest.raises(ValueError, match="not submodules"):
        extract(model, clips, ["nope"])
    with pytest.raises(ValueError, match="clips must be an array of shape"):
        extract(model, clips[0], ["pair"])
    with pytest.raises(TypeError, match="model"):
        extract("model", clips, ["pair"])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="mode"):
        extract(model, clips, ["pair"], mode="audio")
    with pytest.raises(ValueError, match="clip_len"):
        sample_clips(clips, clip_len=0)
