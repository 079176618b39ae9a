"""Recourse metrics, as the official notebook computes them: cost ‖x⁺ − x⁻‖₁, validity under the deployed
classifier (h > 0.5), gold validity (p_gold > 0.5) and gold probability, plausibility (inlier under a
``LocalOutlierFactor(n_neighbors=5, novelty=True)`` fit on every point the gold model labels y⁺), and the
immutable-feature violation rate.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.neighbors import LocalOutlierFactor

from genre.classifiers import as_proba
from genre.recourse import check_features

__all__ = [
    "cost_l1",
    "evaluate",
    "evaluate_each",
    "fit_lof",
    "gold_prob",
    "immutable_violation",
    "lof_inliers",
    "validity",
]


def cost_l1(X: np.ndarray, X_cf: np.ndarray) -> np.ndarray:
    """(n,) L1 cost ‖x_cf − x‖₁ of (n, d) arrays."""
    return np.abs(np.asarray(X_cf) - np.asarray(X)).sum(axis=1)


def validity(classifier: Any, X_cf: np.ndarray) -> np.ndarray:
    """(n,) bool, h(x_cf) > 0.5."""
    return as_proba(classifier)(X_cf) > 0.5


def gold_prob(gold: Any, X_cf: np.ndarray) -> np.ndarray:
    """(n,) gold P(y = 1 | x_cf)."""
    return as_proba(gold)(X_cf)


def fit_lof(gold: Any, X_all: np.ndarray, n_neighbors: int = 5) -> LocalOutlierFactor:
    """LOF novelty detector fit on the points of X_all (n, d) that the gold model labels 1."""
    ref = X_all[gold_prob(gold, X_all) > 0.5]
    if len(ref) <= n_neighbors:
        raise ValueError(f"the gold model labels only {len(ref)} points positive; LOF needs > {n_neighbors}")
    return LocalOutlierFactor(n_neighbors=n_neighbors, novelty=True).fit(ref)


def lof_inliers(lof: LocalOutlierFactor, X_cf: np.ndarray) -> np.ndarray:
    """(n,) bool, True where the fitted LOF calls x_cf an inlier."""
    return lof.predict(X_cf) == 1


def immutable_violation(X: np.ndarray, X_cf: np.ndarray, imm_mask: np.ndarray | None) -> np.ndarray:
    """(n,) bool, True where some immutable feature changed."""
    if imm_mask is None or not np.any(imm_mask):
        return np.zeros(len(X), dtype=bool)
    return np.any(np.asarray(X)[:, imm_mask] != np.asarray(X_cf)[:, imm_mask], axis=1)


def _check_pair_arrays(X: Any, X_cf: Any) -> tuple[np.ndarray, np.ndarray]:
    X, X_cf = check_features(X, name="X"), check_features(X_cf, name="X_cf")
    if X.shape != X_cf.shape:
        raise ValueError(
            f"X and X_cf must have the same shape (one recourse a row), got {X.shape} and {X_cf.shape}"
        )
    return X, X_cf


def evaluate_each(
    X: np.ndarray,
    X_cf: np.ndarray,
    classifier: Any,
    gold: Any,
    lof: LocalOutlierFactor,
    imm_mask: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """Every metric per individual, (n,) each: cost, validity, gold_validity, gold_prob, lof_inlier,
    immutable_violation and ``valid_plausible`` (accepted by h, gold-valid and an LOF inlier at once)."""
    X, X_cf = _check_pair_arrays(X, X_cf)
    g = gold_prob(gold, X_cf)
    inlier = lof_inliers(lof, X_cf) if len(X_cf) else np.zeros(0, dtype=bool)
    return {
        "cost": cost_l1(X, X_cf),
        "validity": validity(classifier, X_cf).astype(np.float64),
        "gold_validity": (g > 0.5).astype(np.float64),
        "gold_prob": np.asarray(g, dtype=np.float64),
        "lof_inlier": inlier.astype(np.float64),
        "valid_plausible": (validity(classifier, X_cf) & (g > 0.5) & inlier).astype(np.float64),
        "immutable_violation": immutable_violation(X, X_cf, imm_mask).astype(np.float64),
    }


def evaluate(
    X: np.ndarray,
    X_cf: np.ndarray,
    classifier: Any,
    gold: Any,
    lof: LocalOutlierFactor,
    imm_mask: np.ndarray | None = None,
) -> dict[str, float]:
    """Means (and the cost's std) of every metric over the (n, d) individuals X and their recourse X_cf."""
    each = evaluate_each(X, X_cf, classifier, gold, lof, imm_mask)
    if len(each["cost"]) == 0:
        raise ValueError("X is empty: no individuals to evaluate")
    out = {k: float(v.mean()) for k, v in each.items()}
    out["cost_std"] = float(each["cost"].std())
    return out
