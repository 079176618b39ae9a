r"""Representational dissimilarity matrices (RDMs) and their strict upper triangles.

For responses ``X`` of shape ``(S, F)`` (S stimuli, F features or voxels) the RDM is ``D`` with

- ``"correlation"`` (the paper's brain and model RDMs; Net2Brain's ``pearson``, the official
  ``raw2rdm``): :math:`D_{ab} = 1 - \mathrm{corr}(x_a, x_b)`, Pearson over the F features;
- ``"euclidean"``: :math:`D_{ab} = \lVert x_a - x_b \rVert_2`;
- ``"cosine"``: :math:`D_{ab} = 1 - x_a \cdot x_b / (\lVert x_a\rVert \lVert x_b\rVert)`.

Model features are first reduced by PCA to ``pca`` components estimated on the S stimuli (official
code: ``dim_reduction="pca", n_samples_estim=102, n_components=100``); centred data of S stimuli have at
most S - 1 informative components, so a larger request is clipped with a warning. ``zscore_dim``
standardises along an axis first (the official ``raw2rdm(dim=...)``, off by default, with its 1e-7).

A stimulus whose response is constant over features has an undefined correlation: it is refused
(``ValueError`` naming the stimulus), never turned into NaN.
"""

from __future__ import annotations

import warnings

import numpy as np
from paperkit import check_array, check_choice, check_int

__all__ = ["METRICS", "pca_reduce", "rdm", "rdm_kernel", "upper"]

METRICS = ("correlation", "euclidean", "cosine")


def pca_reduce(x: np.ndarray, n_components: int) -> np.ndarray:
    """``(S, k)`` PCA scores of ``x`` ``(S, F)`` with ``k = min(n_components, S - 1, F)``, float64.

    Estimated on the rows given (centred over stimuli); a request above ``S - 1`` warns and clips.
    """
    x = np.asarray(check_array(x, "x", ndim=2), dtype=np.float64)
    n_components = check_int(n_components, "n_components", low=1)
    s, f = x.shape
    if s < 2 or f < 1:
        raise ValueError(f"x must hold at least 2 stimuli and 1 feature, got shape {x.shape}")
    k = min(n_components, s - 1, f)
    if n_components > s - 1:
        warnings.warn(
            f"pca={n_components} exceeds the {s - 1} informative components of {s} centred stimuli; "
            f"using {k}",
            stacklevel=2,
        )
    xc = x - x.mean(axis=0)
    if f > 4 * s:  # wide layers: the S x S Gram is cheaper than an S x F SVD
        vals, vecs = np.linalg.eigh(xc @ xc.T)
        order = np.argsort(vals)[::-1][:k]
        return vecs[:, order] * np.sqrt(np.clip(vals[order], 0.0, None))
    u, sv, _ = np.linalg.svd(xc, full_matrices=False)
    return u[:, :k] * sv[:k]


def rdm_kernel(x: np.ndarray, metric: str) -> np.ndarray:
    """``(S, S)`` RDM of ``x`` ``(S, F)`` float64, no checks (rows must not be constant for correlation)."""
    if metric == "euclidean":
        sq = np.einsum("ij,ij->i", x, x)
        d2 = np.clip(sq[:, None] + sq[None, :] - 2 * (x @ x.T), 0.0, None)
        out = np.sqrt(d2)
    else:
        z = x - x.mean(axis=1, keepdims=True) if metric == "correlation" else x
        z = z / np.linalg.norm(z, axis=1, keepdims=True)
        out = np.clip(1.0 - z @ z.T, 0.0, 2.0)
    out = 0.5 * (out + out.T)
    np.fill_diagonal(out, 0.0)
    return out


def _check_rows(x: np.ndarray, metric: str) -> None:
    if metric == "euclidean":
        return
    centred = x - x.mean(axis=1, keepdims=True) if metric == "correlation" else x
    scale = np.abs(x).max(axis=1) + 1e-300
    bad = np.flatnonzero(np.linalg.norm(centred, axis=1) <= 1e-12 * scale * np.sqrt(x.shape[1]))
    if bad.size:
        what = "constant" if metric == "correlation" else "all-zero"
        raise ValueError(
            f"features has {bad.size} {what} stimulus row(s) (first: stimulus {int(bad[0])}); "
            f"the {metric} distance is undefined for them"
        )


def rdm(
    features: np.ndarray,
    metric: str = "correlation",
    *,
    pca: int | None = 100,
    zscore_dim: int | None = None,
) -> np.ndarray:
    """``(S, S)`` float64 RDM of ``features`` ``(S, ...)`` (flattened to ``(S, F)``), S >= 4.

    ``pca``: components kept before the distance (``None``: none; the official code uses 100 for
    model layers and none for brain ROIs). ``zscore_dim``: 0 (over stimuli) or 1 (over features).
    """
    x = np.asarray(check_array(features, "features"), dtype=np.float64)
    if x.ndim < 2 or x.size == 0:
        raise ValueError(f"features must be an array of shape (stimuli, features...), got shape {x.shape}")
    x = x.reshape(x.shape[0], -1)
    if x.shape[0] < 4:
        raise ValueError(
            f"features must hold at least 4 stimuli (Spearman needs >= 3 pairs), got {x.shape[0]}"
        )
    metric = check_choice(metric, "metric", METRICS)
    if zscore_dim is not None:
        dim = check_choice(check_int(zscore_dim, "zscore_dim"), "zscore_dim", (0, 1))
        x = (x - x.mean(axis=dim, keepdims=True)) / (x.std(axis=dim, keepdims=True) + 1e-7)
    _check_rows(x, metric)
    if pca is not None:
        x = pca_reduce(x, check_int(pca, "pca", low=1))
        _check_rows(x, metric)
    return rdm_kernel(x, metric)


def upper(d: np.ndarray) -> np.ndarray:
    """``(S (S - 1) / 2,)`` strict upper triangle (k = 1) of a square ``d`` ``(..., S, S)``, row-major."""
    d = np.asarray(check_array(d, "rdm"))
    if d.ndim < 2 or d.shape[-1] != d.shape[-2] or d.shape[-1] < 2:
        raise ValueError(f"rdm must be a square matrix (..., S, S) with S >= 2, got shape {d.shape}")
    i, j = np.triu_indices(d.shape[-1], k=1)
    return d[..., i, j]
