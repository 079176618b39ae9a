"""The synthetic "brain watching videos" benchmark: rendered clips and synthetic subjects.

Clips (spec, scaled down to 16 x 16 pixels and 8 frames to fit 2 CPU cores): one object of a shape in
``SHAPES`` performs an action in ``ACTIONS`` on a static low-frequency textured background, with a random
colour (shaded along the object's own axis, so that a rotating disk is visible), position, size and
speed. Each action is played at speeds drawn from [0.5, 2] x its base rate, so the motion energy of a
clip is decorrelated from its action. Labels are balanced: clip i has action ``i % 5`` and shape
``(i // 5) % 4``.

Synthetic subjects: each ROI's "voxels" are a subject-specific random linear map of one ground-truth
feature space plus Gaussian noise (spec):

- ``"V1"`` <- the pixels of the individual frames (static, retinotopic);
- ``"MT"`` <- frame-difference energy pooled over space, one value per frame pair (motion);
- ``"action"`` <- one-hot action; ``"object"`` <- one-hot shape.

Each feature is z-scored over the stimuli, mapped by ``W_s ~ N(0, 1/F)`` to ``voxels`` voxels, and noise
of standard deviation ``noise[roi]`` is added; :func:`noise_for_ceiling` finds the noise that puts an
ROI's upper noise ceiling at a target (spec: about 0.5) on a calibration draw of its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from paperkit import (
    check_array,
    check_choice,
    check_instance,
    check_int,
    check_number,
    check_positive,
    check_seed,
)

from video_brain_rsa.dissimilarity import rdm_kernel
from video_brain_rsa.rsa import noise_ceiling

__all__ = [
    "ACTIONS",
    "ROIS",
    "SHAPES",
    "Clips",
    "ground_truth",
    "make_subjects",
    "motion_energy",
    "noise_for_ceiling",
    "render_clips",
]

SHAPES = ("disk", "square", "triangle", "cross")
ACTIONS = ("translate-left", "translate-right", "rotate", "expand-contract", "oscillate")
ROIS = ("V1", "MT", "action", "object")


@dataclass(frozen=True)
class Clips:
    """``video`` ``(n, T, 3, H, W)`` float32 in [0, 1]; ``action``, ``shape`` ``(n,)`` int64; ``speed``
    ``(n,)``."""

    video: np.ndarray
    action: np.ndarray
    shape: np.ndarray
    speed: np.ndarray

    def __len__(self) -> int:
        return int(self.video.shape[0])


def _sdf(shape: np.ndarray, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Signed distance-like field (< 0 inside) of each clip's shape in object coordinates."""
    disk = np.sqrt(u**2 + v**2) - 1.0
    square = np.maximum(np.abs(u), np.abs(v)) - 0.8
    tri = np.maximum(np.maximum(-v - 0.5, 0.866 * u + 0.5 * v - 0.5), -0.866 * u + 0.5 * v - 0.5) * 1.3
    cross = np.minimum(
        np.maximum(np.abs(u) - 1.0, np.abs(v) - 0.35), np.maximum(np.abs(u) - 0.35, np.abs(v) - 1.0)
    )
    fields = np.stack([disk, square, tri, cross])  # (4, n, T, H, W)
    return np.take_along_axis(fields, shape[None, :, None, None, None], axis=0)[0]


def _trajectories(action: np.ndarray, speed: np.ndarray, rng: np.random.Generator, frames: int) -> tuple:
    """Centre (cx, cy), angle and scale ``(n, T)`` per clip and frame."""
    n = action.size
    t = np.arange(frames) - (frames - 1) / 2
    cx0, cy0 = rng.uniform(-0.25, 0.25, n), rng.uniform(-0.25, 0.25, n)
    ang0, size = rng.uniform(0, 2 * np.pi, n), rng.uniform(0.45, 0.6, n)
    sign = rng.choice([-1.0, 1.0], n)  # expand or contract
    phase = rng.uniform(0, 2 * np.pi, n)
    v = speed[:, None]
    cx = (
        cx0[:, None] + np.where(action[:, None] == 0, -1, np.where(action[:, None] == 1, 1, 0)) * 0.07 * v * t
    )
    cy = cy0[:, None] + (action[:, None] == 4) * 0.25 * np.sin(0.9 * v * t + phase[:, None])
    ang = ang0[:, None] + (action[:, None] == 2) * 0.3 * v * t
    scale = size[:, None] * np.exp((action[:, None] == 3) * sign[:, None] * 0.09 * v * t)
    return cx, cy, ang, scale


def _background(rng: np.random.Generator, n: int, size: int) -> np.ndarray:
    """``(n, 3, H, W)`` static texture: 4 x 4 noise upsampled bilinearly, mid grey."""
    coarse = rng.uniform(0.2, 0.6, (n, 3, 4, 4))
    pos = np.linspace(0, 3, size)
    i0 = np.minimum(pos.astype(int), 2)
    w = pos - i0
    rows = coarse[:, :, i0] * (1 - w)[:, None] + coarse[:, :, i0 + 1] * w[:, None]
    return rows[..., i0] * (1 - w) + rows[..., i0 + 1] * w


def _render(action: np.ndarray, shape: np.ndarray, speed: np.ndarray, rng: np.random.Generator,
            frames: int, size: int) -> np.ndarray:  # fmt: skip
    n = action.size
    cx, cy, ang, scale = (a[..., None, None] for a in _trajectories(action, speed, rng, frames))
    grid = np.linspace(-1, 1, size)
    X, Y = grid[None, None, None, :], grid[None, None, :, None]
    dx, dy = X - cx, Y - cy
    u = (dx * np.cos(ang) + dy * np.sin(ang)) / scale
    v = (-dx * np.sin(ang) + dy * np.cos(ang)) / scale
    sharp = scale * size / 2  # about one pixel of soft edge
    mask = 1 / (1 + np.exp(np.clip(_sdf(shape, u, v) * sharp, -30, 30)))  # (n, T, H, W)
    colour = rng.uniform(0.5, 1.0, (n, 3))
    shade = 0.7 + 0.3 * np.clip(u, -1, 1)  # a gradient along the object's axis makes rotation visible
    obj = colour[:, None, :, None, None] * shade[:, :, None]
    bg = _background(rng, n, size)[:, None]
    m = mask[:, :, None]
    return (bg * (1 - m) + obj * m).astype(np.float32)


def render_clips(n: int, *, seed: int, frames: int = 8, size: int = 16, chunk: int = 256) -> Clips:
    """``n`` balanced clips (see the module docstring), drawn from ``numpy.random.default_rng(seed)``."""
    n = check_int(n, "n", low=1)
    frames = check_int(frames, "frames", low=2)
    size = check_int(size, "size", low=4)
    chunk = check_int(chunk, "chunk", low=1)
    rng = np.random.default_rng(check_seed(seed))
    idx = np.arange(n)
    action, shape = idx % len(ACTIONS), (idx // len(ACTIONS)) % len(SHAPES)
    speed = rng.uniform(0.5, 2.0, n)
    video = np.concatenate([
        _render(action[a : a + chunk], shape[a : a + chunk], speed[a : a + chunk], rng, frames, size)
        for a in range(0, n, chunk)
    ])  # fmt: skip
    return Clips(video, action.astype(np.int64), shape.astype(np.int64), speed)


def motion_energy(video: np.ndarray) -> np.ndarray:
    """``(n, T - 1)`` mean squared frame difference over pixels and channels of ``video``
    ``(n, T, C, H, W)``."""
    v = np.asarray(check_array(video, "video", ndim=5), dtype=np.float64)
    if v.shape[1] < 2:
        raise ValueError(f"video must hold >= 2 frames (T) for frame differences, got shape {v.shape}")
    return np.mean(np.diff(v, axis=1) ** 2, axis=(2, 3, 4))


def ground_truth(clips: Clips) -> dict[str, np.ndarray]:
    """The feature space behind each ROI, ``(n, F)`` float64 (see the module docstring)."""
    check_instance(clips, "clips", Clips)
    n = check_array(clips.video, "clips.video", ndim=5).shape[0]
    for name, k in (("action", len(ACTIONS)), ("shape", len(SHAPES))):
        lab = np.asarray(check_array(getattr(clips, name), f"clips.{name}", shape=(n,), kind="iu"))
        if lab.size and (lab.min() < 0 or lab.max() >= k):
            raise ValueError(
                f"clips.{name} must be class indices 0 .. {k - 1}, got {lab.min()} .. {lab.max()}"
            )
    return {
        "V1": clips.video.reshape(n, -1).astype(np.float64),
        "MT": motion_energy(clips.video),
        "action": np.eye(len(ACTIONS))[clips.action],
        "object": np.eye(len(SHAPES))[clips.shape],
    }


def _zscore(f: np.ndarray) -> np.ndarray:
    sd = f.std(axis=0)
    keep = sd > 0
    return (f[:, keep] - f[:, keep].mean(axis=0)) / sd[keep]


def _parts(f: np.ndarray, n_subjects: int, voxels: int, rng: np.random.Generator) -> tuple:
    """Signal ``z W_s`` and unit noise, each ``(n_subjects, n, voxels)`` (the noise sd scales the latter)."""
    z = _zscore(f)
    w = rng.standard_normal((n_subjects, z.shape[1], voxels)) / np.sqrt(z.shape[1])
    return z @ w, rng.standard_normal((n_subjects, z.shape[0], voxels))


def make_subjects(
    clips: Clips,
    *,
    noise: dict[str, float],
    n_subjects: int = 10,
    voxels: int = 200,
    seed: int,
) -> dict[str, np.ndarray]:
    """``{roi: (n_subjects, n, voxels)}`` responses of synthetic subjects to ``clips`` (module docstring).

    ROI ``k`` of ``noise`` (in the order given) draws from ``default_rng([seed, k])``.
    """
    check_instance(clips, "clips", Clips)
    n_subjects = check_int(n_subjects, "n_subjects", low=1)
    voxels = check_int(voxels, "voxels", low=1)
    seed = check_seed(seed)
    check_instance(noise, "noise", Mapping)
    truth = ground_truth(clips)
    unknown = set(noise) - set(truth)
    if unknown:
        raise ValueError(f"noise names unknown ROIs {sorted(unknown)}; known: {list(ROIS)}")
    out = {}
    for k, (roi, sd) in enumerate(noise.items()):
        sd = check_positive(sd, f"noise[{roi!r}]", strict=False)
        signal, unit = _parts(truth[roi], n_subjects, voxels, np.random.default_rng([seed, k]))
        out[roi] = signal + sd * unit
    return out


def noise_for_ceiling(
    clips: Clips,
    roi: str,
    *,
    target: float = 0.5,
    n_subjects: int = 10,
    voxels: int = 200,
    seed: int,
    iters: int = 14,
) -> float:
    """Noise sd whose upper noise ceiling (Net2Brain convention) is ``target`` on a calibration draw.

    Bisection on log(sd) in [1e-2, 1e3] with the draw's signal and unit noise fixed (the ceiling falls
    as the noise grows).
    """
    target = check_number(target, "target", low=0.0, high=1.0, low_open=True, high_open=True)
    roi = check_choice(roi, "roi", ROIS)
    n_subjects = check_int(n_subjects, "n_subjects", low=2)  # a noise ceiling needs two subjects
    voxels = check_int(voxels, "voxels", low=2)  # a correlation distance needs two voxels
    signal, unit = _parts(
        ground_truth(clips)[roi], n_subjects, voxels, np.random.default_rng(check_seed(seed))
    )
    lo, hi = np.log(1e-2), np.log(1e3)
    for _ in range(check_int(iters, "iters", low=1)):
        mid = 0.5 * (lo + hi)
        resp = signal + np.exp(mid) * unit
        unc = noise_ceiling(np.stack([rdm_kernel(r, "correlation") for r in resp]))[1]
        lo, hi = (mid, hi) if unc > target else (lo, mid)
    return float(np.exp(0.5 * (lo + hi)))
