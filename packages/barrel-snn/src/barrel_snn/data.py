"""Whisker-sweep data: a synthetic generator in the shape of the paper's data set, and its spike encoding.

The paper converts simulated whisker sweeps (Zhuang et al. 2017) to spikes: force and torque arrays of
shape (N, 12, 110, 31, 3, 3) (sweep variants, frames, whiskers, points along a whisker, xyz), magnitude
m = ||.||_2 over xyz (zeros -> 1e-5), p = sigmoid(ln m - c) with c = 2 (force) / 4 (torque), each frame
repeated ``dt_rep`` times and sampled s ~ Bernoulli(p); only sweep variant 0 is used.

The real h5 files are not public here, so :func:`make_synthetic_sweeps` builds a stand-in: 31 straight
whiskers on a 5-row pad (rows of 5, 6, 7, 7, 6 arcs, length decreasing with arc), 3 points per whisker;
three object classes (0 "helmet": a sphere, 1 "box": a cube, 2 "plane": a thin swept slab) moved past the
pad with random speed, height, distance, yaw and size. Per frame the contact force at a point is
stiffness x penetration depth along the outward surface normal, the torque the lever arm (point - whisker
base) x force. Units: mm and arbitrary force units.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from paperkit.validation import check_instance, check_int

N_WHISKERS = 31
N_POINTS = 3
N_FRAMES = 110
CLASS_NAMES = ("helmet", "box", "plane")
SHAPENET_LABELS = {53: 0, 55: 1, 113: 2}  # official whisker_dataset.py
ROW_ARCS = (5, 6, 7, 7, 6)  # whiskers per row A..E (31 in all)


def whisker_pad() -> tuple[np.ndarray, np.ndarray]:
    """Bases (31, 3) and the 3 points of every whisker (31, 3, 3) in mm; whiskers point along +z."""
    bases, lengths = [], []
    for row, n_arc in enumerate(ROW_ARCS):
        for arc in range(n_arc):
            bases.append([2.5 * arc - 2.5 * (n_arc - 1) / 2, 2.5 * row, 0.0])
            lengths.append(30.0 - 3.2 * arc)  # caudal (arc 0) whiskers are the longest
    base = np.array(bases)
    frac = np.array([1 / 3, 2 / 3, 1.0])
    pts = base[:, None, :] + frac[None, :, None] * np.array(lengths)[:, None, None] * np.array([0, 0, 1.0])
    return base, pts


def _sdf_sphere(p: np.ndarray, size: np.ndarray) -> np.ndarray:
    return np.linalg.norm(p, axis=-1) - 8.0 * size


def _sdf_box(p: np.ndarray, size: np.ndarray, half: Sequence[float] = (6.0, 6.0, 6.0)) -> np.ndarray:
    q = np.abs(p) - np.asarray(half) * size[..., None]
    outside = np.linalg.norm(np.maximum(q, 0), axis=-1)
    return outside + np.minimum(q.max(-1), 0)


def _sdf_plane(p: np.ndarray, size: np.ndarray) -> np.ndarray:
    # thin swept wing: the span axis leans back by 35 deg in the x-z plane
    c, s = np.cos(np.deg2rad(35)), np.sin(np.deg2rad(35))
    q = np.stack([c * p[..., 0] + s * p[..., 2], p[..., 1], -s * p[..., 0] + c * p[..., 2]], -1)
    return _sdf_box(q, size, half=(14.0, 1.2, 4.0))


SHAPES: tuple[Callable[[np.ndarray, np.ndarray], np.ndarray], ...] = (_sdf_sphere, _sdf_box, _sdf_plane)


def make_synthetic_sweeps(
    n: int, seed: int = 0, frames: int = N_FRAMES, stiffness: float = 10.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``n`` synthetic sweeps, classes balanced (i % 3) then shuffled.

    Returns:
        force, torque: (n, 1, frames, 31, 3, 3) float32 (one sweep variant; xyz last).
        labels: (n,) int64 in {0 helmet, 1 box, 2 plane}.
    """
    check_int(n, "n", low=1)
    check_int(frames, "frames", low=2)
    rng = np.random.default_rng(seed)
    labels = rng.permutation(np.arange(n) % 3).astype(np.int64)
    base, pts = whisker_pad()  # (31, 3), (31, 3, 3)
    speed = rng.uniform(0.35, 0.6, n)  # mm per frame
    x0 = -22.0 + rng.uniform(-3, 3, n)
    height = rng.uniform(0.0, 10.0, n)
    depth = rng.uniform(14.0, 26.0, n)
    yaw = rng.uniform(-0.5, 0.5, n)
    size = rng.uniform(0.8, 1.2, n)
    t = np.arange(frames)
    centre = np.zeros((n, frames, 3))
    centre[..., 0] = x0[:, None] + speed[:, None] * t
    centre[..., 1] = height[:, None]
    centre[..., 2] = depth[:, None]
    rel = pts[None, None] - centre[:, :, None, None, :]  # (n, F, 31, 3, 3)
    cy, sy = np.cos(yaw), np.sin(yaw)  # rotate into the object frame about the y axis
    rot = np.zeros((n, 3, 3))
    rot[:, 0, 0], rot[:, 0, 2], rot[:, 1, 1], rot[:, 2, 0], rot[:, 2, 2] = cy, -sy, 1, sy, cy
    local = np.matmul(rel.reshape(n, -1, 3), rot.transpose(0, 2, 1)).reshape(rel.shape)
    sz = np.broadcast_to(size[:, None, None, None], local.shape[:-1])
    force_local = np.zeros_like(local)
    for k, sdf in enumerate(SHAPES):
        sel = labels == k
        if not sel.any():
            continue
        q, s = local[sel], sz[sel]
        d = sdf(q, s)
        inside = d < 0  # only penetrating points carry force: evaluate normals there
        qi, si = q[inside], s[inside]
        eps = 1e-3
        grad = np.stack(
            [(sdf(qi + eps * e, si) - sdf(qi - eps * e, si)) / (2 * eps) for e in np.eye(3)], axis=-1
        )
        normal = grad / np.maximum(np.linalg.norm(grad, axis=-1, keepdims=True), 1e-9)
        fk = np.zeros_like(q)
        fk[inside] = stiffness * (-d[inside])[:, None] * normal
        force_local[sel] = fk
    force = np.matmul(force_local.reshape(n, -1, 3), rot).reshape(rel.shape)  # back to the pad frame
    lever = pts - base[:, None, :]  # (31, 3, 3)
    torque = np.cross(np.broadcast_to(lever, force.shape), force)
    return (
        force[:, None].astype(np.float32),
        torque[:, None].astype(np.float32),
        labels,
    )


def _check_sweeps(force: np.ndarray, torque: np.ndarray) -> None:
    for name, a in (("force", force), ("torque", torque)):
        if not isinstance(a, np.ndarray):
            raise TypeError(f"{name} must be a numpy array, got {type(a).__name__}")
        if a.ndim != 6 or a.shape[3:] != (N_WHISKERS, N_POINTS, 3):
            raise ValueError(f"{name} must have shape (N, variants, frames, 31, 3, 3), got {tuple(a.shape)}")
    if force.shape != torque.shape:
        raise ValueError(f"force and torque shapes differ: {force.shape} vs {torque.shape}")


def spike_probabilities(arr: np.ndarray, c: float, variant: int = 0) -> np.ndarray:
    """p = sigmoid(ln m - c), m = ||arr||_2 over xyz with 0 -> 1e-5: (N, frames, 93) float64."""
    m = np.linalg.norm(arr[:, variant].astype(np.float64), axis=-1)  # (N, F, 31, 3)
    m[m == 0] = 1e-5
    p = 1.0 / (1.0 + np.exp(-(np.log(m) - c)))
    return p.reshape(p.shape[0], p.shape[1], -1)


def encode_spikes(
    force: np.ndarray,
    torque: np.ndarray,
    rng: np.random.Generator,
    dt_rep: int = 5,
    c_force: float = 2.0,
    c_torque: float = 4.0,
    variant: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """The paper's encoding: (N, V, F, 31, 3, 3) force/torque -> two (N, F * dt_rep, 93) float32 spike trains.

    Each frame's probability is repeated ``dt_rep`` times and sampled s ~ Bernoulli(p) with ``rng``.
    """
    _check_sweeps(force, torque)
    check_int(dt_rep, "dt_rep", low=1)
    check_instance(rng, "rng", np.random.Generator)
    out = []
    for arr, c in ((force, c_force), (torque, c_torque)):
        p = np.repeat(spike_probabilities(arr, c, variant), dt_rep, axis=1)
        out.append((rng.random(p.shape) < p).astype(np.float32))
    return out[0], out[1]


def deprive(
    force: np.ndarray, torque: np.ndarray, whiskers: Sequence[int] | np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Whisker deprivation: copies of force and torque with the listed whiskers (0..30) set to 0."""
    _check_sweeps(force, torque)
    w = np.asarray(list(whiskers) if not isinstance(whiskers, np.ndarray) else whiskers)
    if w.size and (w.dtype.kind not in "iu"):
        raise TypeError(f"whisker indices must be integers, got dtype {w.dtype}")
    if w.size and (w.min() < 0 or w.max() >= N_WHISKERS):
        raise ValueError(f"whisker indices must be in 0..{N_WHISKERS - 1}, got {w.tolist()}")
    f, t = force.copy(), torque.copy()
    f[:, :, :, w] = 0
    t[:, :, :, w] = 0
    return f, t


def load_h5(path: str | Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The official h5 files (datasets ``force``, ``torque``, ``label`` with ShapeNet ids 53/55/113).

    Needs h5py (``pip install barrel-snn[h5]``). Returns force, torque (N, 12, 110, 31, 3, 3) and
    labels (N,) int64 in {0, 1, 2}.
    """
    try:
        import h5py
    except ImportError as e:  # pragma: no cover - optional extra
        raise ImportError("load_h5 needs h5py: pip install 'barrel-snn[h5]'") from e
    with h5py.File(path, "r") as f:
        force, torque, raw = f["force"][:], f["torque"][:], f["label"][:]
    labels = np.array([SHAPENET_LABELS[int(v)] for v in raw], dtype=np.int64)
    _check_sweeps(force, torque)
    return force, torque, labels


__all__ = [
    "CLASS_NAMES",
    "N_FRAMES",
    "N_POINTS",
    "N_WHISKERS",
    "deprive",
    "encode_spikes",
    "load_h5",
    "make_synthetic_sweeps",
    "spike_probabilities",
    "whisker_pad",
]
