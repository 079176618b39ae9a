"""Data sets: scikit-learn's ``make_moons`` and the bundled breast-cancer data, under the official
semi-synthetic protocol: a calibrated random forest ("gold" model) is fit on all points, and the labels are
re-sampled y ~ Bernoulli(p_gold(x)) so that the true P(y | x) is known. Features are z-scored then min-max
scaled to [0, 1] with the training split's statistics (official ``data/utils.py``, ``MIN_MAX = True``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from paperkit.validation import check_int, check_number
from sklearn.datasets import load_breast_cancer, make_moons
from sklearn.ensemble import RandomForestClassifier

from genre.classifiers import gold_model

__all__ = ["Dataset", "load_breast_cancer_semisynthetic", "load_moons", "semisynthetic"]


@dataclass(frozen=True, eq=False)
class Dataset:
    """A scaled, semi-synthetic tabular data set.

    Attributes:
        name: ``"moons"`` or ``"breast_cancer"``.
        X_train, X_test: (n, d) float64 in [0, 1] on the training split (test may leave it slightly).
        y_train, y_test: (n,) int64 labels re-sampled from the gold model.
        p_gold_train, p_gold_test: (n,) gold P(y = 1 | x).
        gold: the fitted gold model (``predict_proba`` on scaled features).
        cat_mask, imm_mask: (d,) bool categorical / immutable features.
        feature_names: d names.
        lo, hi: (d,) the min-max scaler's bounds in z-scored units; mean, std: the z-scorer's.
    """

    name: str
    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    p_gold_train: np.ndarray
    p_gold_test: np.ndarray
    gold: object
    cat_mask: np.ndarray
    imm_mask: np.ndarray
    feature_names: tuple[str, ...]
    mean: np.ndarray
    std: np.ndarray
    lo: np.ndarray
    hi: np.ndarray

    @property
    def n_features(self) -> int:
        return self.X_train.shape[1]

    @property
    def X_all(self) -> np.ndarray:
        return np.concatenate([self.X_train, self.X_test])


def semisynthetic(
    name: str,
    X: np.ndarray,
    y: np.ndarray,
    seed: int,
    test_frac: float = 0.1,
    feature_names: tuple[str, ...] | None = None,
    imm_mask: np.ndarray | None = None,
    gold_trees: int = 100,
) -> Dataset:
    """Split, scale (train statistics), fit the gold model on all points, re-sample the labels.

    Args:
        X: (n, d) raw features; y: (n,) original labels in {0, 1}; seed: split, gold model and labels.
        test_frac: test fraction (official 10 %). imm_mask: (d,) bool immutable features.
        gold_trees: trees of the gold random forest.
    """
    X, y = np.asarray(X, dtype=np.float64), np.asarray(y)
    if X.ndim != 2 or y.shape != (len(X),) or len(X) < 2:
        raise ValueError(f"X must be (n, d) with n >= 2 and y (n,), got {X.shape} and {y.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError("X contains NaN or infinite values")
    test_frac = check_number(test_frac, "test_frac", low=0.0, high=1.0, low_open=True, high_open=True)
    check_int(seed, "seed", low=0)
    rng = np.random.default_rng(seed)
    n = len(X)
    perm = rng.permutation(n)
    n_test = max(1, round(test_frac * n))
    te, tr = perm[:n_test], perm[n_test:]
    mean, std = X[tr].mean(0), X[tr].std(0)
    std = np.where(std > 0, std, 1.0)
    Z = (X - mean) / std
    lo, hi = Z[tr].min(0), Z[tr].max(0)
    Xs = (Z - lo) / np.where(hi > lo, hi - lo, 1.0)
    gold = gold_model(Xs, y, seed=seed, n_estimators=gold_trees)
    p_gold = gold.predict_proba(Xs)[:, 1]
    y_new = (rng.random(n) < p_gold).astype(np.int64)
    d = X.shape[1]
    return Dataset(
        name=name,
        X_train=Xs[tr],
        y_train=y_new[tr],
        X_test=Xs[te],
        y_test=y_new[te],
        p_gold_train=p_gold[tr],
        p_gold_test=p_gold[te],
        gold=gold,
        cat_mask=np.zeros(d, dtype=bool),
        imm_mask=np.zeros(d, dtype=bool) if imm_mask is None else np.asarray(imm_mask, dtype=bool),
        feature_names=feature_names or tuple(f"x{i}" for i in range(d)),
        mean=mean,
        std=std,
        lo=lo,
        hi=hi,
    )


def load_moons(
    seed: int = 0, n: int = 1000, noise: float = 0.04, test_frac: float = 0.1, gold_trees: int = 100
) -> Dataset:
    """``make_moons(n=1000, noise=0.04, random_state=seed)`` as the official repository, semi-synthetic."""
    n = check_int(n, "n", low=20)
    noise = check_number(noise, "noise", low=0.0)
    X, y = make_moons(n_samples=n, noise=noise, random_state=seed)
    return semisynthetic("moons", X, y, seed, test_frac, ("x1", "x2"), gold_trees=gold_trees)


def load_breast_cancer_semisynthetic(
    seed: int = 0, n_features: int = 10, test_frac: float = 0.1, gold_trees: int = 100
) -> Dataset:
    """scikit-learn's bundled breast-cancer data (label 1 = benign, the favourable outcome), restricted to
    the ``n_features`` most important features of a random forest on the original labels, semi-synthetic.
    No feature is immutable (all are continuous measurements; an exact-match immutable continuous feature
    would leave every negative without a partner).
    """
    bunch = load_breast_cancer()
    X, y = bunch.data.astype(np.float64), bunch.target.astype(np.int64)
    check_int(n_features, "n_features", low=1, high=X.shape[1])
    names = list(bunch.feature_names)
    rf = RandomForestClassifier(n_estimators=200, random_state=seed, n_jobs=1).fit(X, y)
    order = np.argsort(-rf.feature_importances_, kind="stable")
    keep = sorted(int(i) for i in order[:n_features])
    kept = tuple(str(names[i]) for i in keep)
    return semisynthetic("breast_cancer", X[:, keep], y, seed, test_frac, kept, gold_trees=gold_trees)
