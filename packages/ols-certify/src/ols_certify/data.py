"""The reproduction's data (spec §"Small-scale reproduction"); nothing is downloaded.

Every generator takes an explicit seed and returns ``(X, y, coef, names)`` with the coefficient of
interest as a column index.
"""

from __future__ import annotations

import numpy as np

Dataset = tuple[np.ndarray, np.ndarray, int, list[str]]


def tiny_instance(seed: int) -> Dataset:
    """(a) A tiny planted regression: n ∈ [12, 20], d ∈ {2, 3} (intercept + 1–2 N(0, 1) features),
    y = 0.5·x₁ + noise with Student-t₃ noise for odd seeds (heavy tails make fragile fits), N(0, 1) else.
    Coefficient of interest: x₁ (column 1)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(12, 21))
    d = int(rng.integers(2, 4))
    X = np.column_stack([np.ones(n), rng.normal(size=(n, d - 1))])
    noise = rng.standard_t(3, size=n) if seed % 2 else rng.normal(size=n)
    names = ["const"] + [f"x{j}" for j in range(1, d)]
    return X, 0.5 * X[:, 1] + noise, 1, names


def gaussian(n: int, d: int, seed: int, planted: float = 0.0) -> Dataset:
    """(b) The official synthetic data: X ~ N(0, 1/n) (n, d), y = planted·x₁ + N(0, 1/n) noise
    (planted = 0: labels independent of X, as in ``examples/make_synthetic_acre_plot.py``; the spec's planted
    version uses 0.1). No intercept (all columns have mean zero). Coefficient of interest: x₁ (column 0)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) / np.sqrt(n)
    y = planted * X[:, 0] + rng.normal(size=n) / np.sqrt(n)
    return X, y, 0, [f"x{j}" for j in range(1, d + 1)]


DIABETES_FEATURES = ["age", "sex", "bmi", "bp", "s1", "s2", "s3", "s4", "s5", "s6"]


def _diabetes_arrays() -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's ``load_diabetes()`` (scaled) data and target, read from the files it ships without
    importing scikit-learn (its import costs about 2 CPU seconds); falls back to ``load_diabetes``."""
    import importlib.util
    from pathlib import Path

    spec = importlib.util.find_spec("sklearn")
    folder = Path(spec.origin).parent / "datasets" / "data" if spec and spec.origin else None
    if folder is None or not (folder / "diabetes_data_raw.csv.gz").exists():  # pragma: no cover
        from sklearn.datasets import load_diabetes

        bunch = load_diabetes()
        return np.asarray(bunch.data, dtype=np.float64), np.asarray(bunch.target, dtype=np.float64)
    raw = np.loadtxt(folder / "diabetes_data_raw.csv.gz")
    target = np.loadtxt(folder / "diabetes_target.csv.gz")
    data = (raw - raw.mean(axis=0)) / raw.std(axis=0)  # sklearn.preprocessing.scale
    return data / np.sqrt(raw.shape[0]), target


def diabetes(coef: str = "bmi") -> Dataset:
    """(c) scikit-learn's diabetes data (n = 442; 10 standardised features + an intercept column)."""
    names = ["const", *DIABETES_FEATURES]
    if coef not in names:
        raise ValueError(f"coef {coef!r} is not a diabetes column; columns are {names}")
    data, target = _diabetes_arrays()
    X = np.column_stack([np.ones(data.shape[0]), data])
    return X, target, names.index(coef), names


def fixed_effects(seed: int, n_groups: int = 20, min_size: int = 3, max_size: int = 50) -> Dataset:
    """(d) A fixed-effects design: ``n_groups`` groups of sizes in [min_size, max_size] (the smallest has
    exactly ``min_size`` rows), one dummy per group (no intercept) and one N(0, 1) regressor x,
    y = 0.5·x + group effect + N(0, 1). Coefficient of interest: x (column 0). Removing the smallest group
    makes XᵀX singular, so no certificate can exceed its size."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(min_size, max_size + 1, size=n_groups)
    sizes[0] = min_size
    g = np.repeat(np.arange(n_groups), sizes)
    n = g.size
    x = rng.normal(size=n)
    D = np.zeros((n, n_groups))
    D[np.arange(n), g] = 1.0
    y = 0.5 * x + rng.normal(size=n_groups)[g] + rng.normal(size=n)
    return np.column_stack([x, D]), y, 0, ["x"] + [f"group{j}" for j in range(n_groups)]
