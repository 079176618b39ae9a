"""Algorithm 1: logarithmic (binary) search for the exact embedding dimension (EED), with PCA warm starts.

1. Fit at ``d_max`` from a random init; if it is not exact, report failure (``eed = None``).
2. ``lo, hi = d_min, d_max − 1``; keep S = [X; Y] of the last exact fit (column-centred for L2, not for
   LPCA, as in the official code).
3. While lo <= hi: D = ⌊(lo + hi) / 2⌋; initialise X₀ = X_c V_D, Y₀ = Y_c V_D from the top-D right singular
   vectors of S (β freshly drawn); fit. Exact: D* = D, hi = D − 1, S refreshed; else lo = D + 1.

At most 1 + ⌈log₂(d_max − d_min + 1)⌉ fits. The D* found is an upper bound on the true minimum (the
search trusts a non-convex optimiser).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from lpca_metric_embed.training import FitResult, fit, validate_common

FitAt = Callable[[int, "tuple[np.ndarray, np.ndarray] | None"], FitResult]


@dataclass(frozen=True, eq=False)
class SearchResult:
    """Outcome of :func:`find_eed`.

    Attributes:
        eed: the smallest D found exact, or None when the fit at ``d_max`` was not exact.
        trace: every fit in order (its dim, exact, epochs, n_wrong, curve, embedding).
        best: the exact fit at ``eed`` (None on failure).
    """

    eed: int | None
    trace: tuple[FitResult, ...]
    best: FitResult | None


def pca_init(X: np.ndarray, Y: np.ndarray, dim: int, *, center: bool) -> tuple[np.ndarray, np.ndarray]:
    """Project [X; Y] (N1+N2, D) on its top-``dim`` right singular vectors (centred first when ``center``).

    Deterministic full SVD (the official code uses ``torch.svd_lowrank(q=dim)``, a randomised
    approximation of the same subspace). Columns beyond the rank of S are zero.
    """
    S = np.vstack([X, Y]).astype(np.float64)
    if center:
        S = S - S.mean(axis=0, keepdims=True)
    _, _, Vt = np.linalg.svd(S, full_matrices=False)
    V = Vt[:dim].T
    if V.shape[1] < dim:  # dim > D of S: pad (cannot happen in the search, which only goes down)
        V = np.hstack([V, np.zeros((V.shape[0], dim - V.shape[1]))])
    P = S @ V
    return P[: len(X)], P[len(X) :]


def log_search(
    fit_at: FitAt, d_min: int, d_max: int, *, warm_start: str = "pca", center: bool = True
) -> SearchResult:
    """The search itself, over any ``fit_at(D, init) -> FitResult`` (init None = random)."""
    if d_min < 1 or d_max < d_min:
        raise ValueError(f"need 1 <= d_min <= d_max, got d_min={d_min}, d_max={d_max}")
    if warm_start not in ("pca", "cold"):
        raise ValueError(f"warm_start must be 'pca' or 'cold', got {warm_start!r}")
    first = fit_at(d_max, None)
    trace = [first]
    if not first.exact:
        return SearchResult(None, tuple(trace), None)
    best = first
    lo, hi = d_min, d_max - 1
    while lo <= hi:
        D = (lo + hi) // 2
        init = pca_init(best.X, best.Y, D, center=center) if warm_start == "pca" else None
        res = fit_at(D, init)
        trace.append(res)
        if res.exact:
            best, hi = res, D - 1
        else:
            lo = D + 1
    return SearchResult(best.dim, tuple(trace), best)


def find_eed(
    graph: object,
    *,
    model: str = "l2",
    loss: str = "hinge",
    d_min: int = 1,
    d_max: int = 64,
    warm_start: str = "pca",
    trainer: str = "dense",
    **fit_kw: object,
) -> SearchResult:
    """Search the exact embedding dimension of ``graph`` for ``model`` with ``loss``.

    Args:
        graph: anything :func:`lpca_metric_embed.to_graph` accepts.
        model: "l2" | "lpca"; loss: "hinge" | "logistic" | "poisson".
        d_min, d_max: the search range (paper: [1, 64] for Cora).
        warm_start: "pca" (paper: SVD of the last exact embedding) or "cold" (random init at every D).
        trainer: "dense" (:func:`lpca_metric_embed.fit`, full batch) or "active" (L2 + hinge only:
            :func:`lpca_metric_embed.fit_active_set`, KD-tree active set, for large graphs).
        **fit_kw: passed to the trainer (lr, max_epochs, patience, eval_every, seed, device, ...).
    """
    from lpca_metric_embed.graphs import to_graph
    from lpca_metric_embed.large import fit_active_set

    validate_common(model, loss, d_max)
    validate_common(model, loss, d_min)
    g = to_graph(graph)
    if trainer == "dense":

        def fit_at(D: int, init: tuple[np.ndarray, np.ndarray] | None) -> FitResult:
            return fit(g, D, model=model, loss=loss, init=init, **fit_kw)  # type: ignore[arg-type]

    elif trainer == "active":
        if model != "l2" or loss != "hinge":
            raise ValueError("trainer='active' needs model='l2' and loss='hinge' (the KD-tree active set)")

        def fit_at(D: int, init: tuple[np.ndarray, np.ndarray] | None) -> FitResult:
            return fit_active_set(g, D, init=init, **fit_kw)  # type: ignore[arg-type]

    else:
        raise ValueError(f"trainer must be 'dense' or 'active', got {trainer!r}")
    return log_search(fit_at, d_min, d_max, warm_start=warm_start, center=(model == "l2"))
