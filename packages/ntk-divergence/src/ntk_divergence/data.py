"""Data (seeded): points on the unit sphere with noisy linear labels, the spec's hard sets for strict
positive definiteness (parallel pairs x, 2x and near-duplicates), and sklearn's 8x8 digits (bundled with
scikit-learn, read offline) as the stand-in for the paper's MNIST experiment."""

from __future__ import annotations

import numpy as np
from paperkit import check_int, check_number, check_seed

__all__ = ["digits", "load_digits_file", "pd_stress_set", "synthetic_sphere"]


def load_digits_file() -> tuple[np.ndarray, np.ndarray]:
    """``(pixels (1797, 64) in 0..16, target (1797,))``: the file ``sklearn.datasets.load_digits`` reads.

    It ships inside the scikit-learn wheel; we read it without importing sklearn (3.7 CPU-s here) and a
    slow test checks it equals ``load_digits()``.
    """
    import importlib.util
    from pathlib import Path

    spec = importlib.util.find_spec("sklearn")  # locates the package without executing it
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError("scikit-learn is needed for the digits data (pip install scikit-learn)")
    path = Path(next(iter(spec.submodule_search_locations))) / "datasets" / "data" / "digits.csv.gz"
    table = np.loadtxt(path, delimiter=",")
    return table[:, :-1], table[:, -1].astype(int)


def synthetic_sphere(
    n: int = 20, d: int = 5, *, seed: int, noise: float = 0.3
) -> tuple[np.ndarray, np.ndarray]:
    """``(X (n, d) float64 on the unit sphere, y (n,) in {-1, +1})`` with y = sign(x_1 + noise * xi)."""
    n, d = check_int(n, "n", low=2), check_int(d, "d", low=1)
    noise = check_number(noise, "noise", low=0.0)
    rng = np.random.default_rng(check_seed(seed))
    X = rng.standard_normal((n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = np.sign(X[:, 0] + noise * rng.standard_normal(n))
    y[y == 0] = 1.0
    return X, y


def pd_stress_set(n: int = 20, d: int = 5, *, seed: int, gap: float = 1e-3) -> np.ndarray:
    """``(n, d)`` distinct inputs off the sphere containing a parallel pair (x, 2x) and a near-duplicate
    pair at distance ``gap`` (the sets on which strict PD is hardest)."""
    n, d = check_int(n, "n", low=4), check_int(d, "d", low=1)
    gap = check_number(gap, "gap", low=0.0, low_open=True)
    rng = np.random.default_rng(check_seed(seed))
    X = rng.standard_normal((n, d)) * rng.uniform(0.5, 2.0, size=(n, 1))
    X[1] = 2.0 * X[0]
    direction = rng.standard_normal(d)
    X[3] = X[2] + gap * direction / np.linalg.norm(direction)
    return X


def digits(n: int, *, classes: tuple[int, ...] = (0, 1), seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``(X (n, 64) float64, y (n,))``: a class-balanced sample of sklearn's ``load_digits`` (no network).

    Pixels are scaled to [0, 1], centred by the mean image of the whole data set (a fixed vector, so the
    kernel is not dominated by the all-positive mean direction) and each image is put on the unit sphere,
    as the synthetic inputs are. Two classes give labels in {-1, +1} (the first class is -1); more give
    labels 0 .. K-1 in the order of ``classes``. ``n`` must be a multiple of ``len(classes)``.
    """
    classes = tuple(check_int(c, "classes", low=0, high=9) for c in classes)
    if len(set(classes)) != len(classes) or len(classes) < 2:
        raise ValueError(f"classes must hold at least two distinct digits, got {classes}")
    n = check_int(n, "n", low=len(classes))
    if n % len(classes):
        raise ValueError(f"n must be a multiple of len(classes) = {len(classes)}, got {n}")
    pixels, target = load_digits_file()
    images = pixels / 16.0
    images = images - images.mean(axis=0)
    rng = np.random.default_rng(check_seed(seed))
    per = n // len(classes)
    picks = [rng.choice(np.flatnonzero(target == c), size=per, replace=False) for c in classes]
    X = images[np.concatenate(picks)]
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    labels = np.repeat(np.arange(len(classes)), per).astype(float)
    y = 2 * labels - 1 if len(classes) == 2 else labels
    order = rng.permutation(n)
    return X[order], y[order]
