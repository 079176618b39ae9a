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

__all__ = ["cost_l1", "evaluate", "fit_lof", "gold_prob", "immutable_violation", "lof_inliers", "validity"]


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


def evaluate(
    X: np.ndarray,
    X_cf: np.ndarray,
    classifier: Any,
    gold: Any,
    lof: LocalOutlierFactor,
    imm_mask: np.ndarray | None = None,
) -> dict[str, float]:
    """Means (and the cost's std) of every metric over the (n, d) individuals X and their recourse X_cf."""
    c = cost_l1(X, X_cf)
    g = gold_prob(gold, X_cf)
    return {
        "cost": float(c.mean()),
        "cost_std": float(c.std()),
        "validity": float(validity(classifier, X_cf).mean()),
        "gold_validity": float((g > 0.5).mean()),
        "gold_prob": float(g.mean()),
        "lof_inlier": float(lof_inliers(lof, X_cf).mean()),
        "immutable_violation": float(immutable_violation(X, X_cf, imm_mask).mean()),
    }
