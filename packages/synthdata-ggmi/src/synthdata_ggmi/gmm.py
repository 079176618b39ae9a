"""Gaussian mixtures: exact log-densities, seeded sampling, and the EM fit of the official simulation.

A mixture with weights w_m, means mu_m and covariances Sigma_m = C_m C_m^T (Cholesky) has

    log p(x) = logsumexp_m [ log w_m - d/2 log(2 pi) - sum_i log (C_m)_ii - 1/2 |C_m^{-1} (x - mu_m)|^2 ].

The official code stores ``means_``/``covariances_``/``weights_`` on unfitted scikit-learn
``GaussianMixture`` objects and only ever samples from them; :class:`GMMSpec` holds the same three arrays,
validated once, with the Cholesky factors cached so that exact densities are available (the corrected
KL estimator of :mod:`synthdata_ggmi.divergence` needs them).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from paperkit import check_array, check_instance, check_int

from synthdata_ggmi.checks import check_rng

__all__ = ["GMMSpec", "fit_gmm", "gmm_log_pdf", "mixture_label_mi", "sample_gmm"]

_LOG_2PI = float(np.log(2 * np.pi))


@dataclass(frozen=True)
class GMMSpec:
    """A Gaussian mixture: ``means (m, d)``, ``covs (m, d, d)`` symmetric PD, ``weights (m,)`` summing to 1.

    Raises ValueError naming the argument when a covariance is not symmetric positive definite, the
    weights are negative or do not sum to 1, or the shapes disagree.
    """

    means: np.ndarray
    covs: np.ndarray
    weights: np.ndarray
    chol: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        means = np.array(check_array(self.means, "means", ndim=2, kind="fiu"), dtype=float)
        m, d = means.shape
        if m < 1 or d < 1:
            raise ValueError(f"means must have at least one component and one dimension, got {means.shape}")
        covs = np.array(check_array(self.covs, "covs", shape=(m, d, d), kind="fiu"), dtype=float)
        w = np.array(check_array(self.weights, "weights", shape=(m,), kind="fiu"), dtype=float)
        if np.any(w < 0) or abs(w.sum() - 1.0) > 1e-8:
            raise ValueError(f"weights must be non-negative and sum to 1, got sum {w.sum():.6g}")
        scale = np.abs(covs).max(axis=(1, 2))
        if np.any(
            np.abs(covs - covs.transpose(0, 2, 1)).max(axis=(1, 2)) > 1e-10 * np.maximum(scale, 1e-300)
        ):
            raise ValueError("covs must be symmetric positive definite matrices (one is not symmetric)")
        try:
            chol = np.linalg.cholesky(covs)
        except np.linalg.LinAlgError:
            raise ValueError("covs must be symmetric positive definite matrices (one is not)") from None
        for name, value in (("means", means), ("covs", covs), ("weights", w), ("chol", chol)):
            value.setflags(write=False)
            object.__setattr__(self, name, value)

    @property
    def n_components(self) -> int:
        return int(self.means.shape[0])

    @property
    def dim(self) -> int:
        return int(self.means.shape[1])

    def log_pdf(self, X: np.ndarray) -> np.ndarray:
        """``(n,)`` exact log-density of the rows of ``X (n, d)``."""
        return gmm_log_pdf(self, X)

    def sample(self, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """``(X (n, d), labels (n,))`` drawn with ``rng``."""
        return sample_gmm(self, n, rng)


def component_log_pdf(spec: GMMSpec, X: np.ndarray) -> np.ndarray:
    """``(n, m)`` log w_m + log N(x; mu_m, Sigma_m) for the rows of ``X`` (kernel: no validation)."""
    diff = X[None, :, :] - spec.means[:, None, :]  # (m, n, d)
    # Solve C_m z = diff^T for every component at once (triangular, batched).
    z = np.linalg.solve(spec.chol, diff.transpose(0, 2, 1))  # (m, d, n)
    maha = np.einsum("mdn,mdn->mn", z, z)
    logdet = np.log(np.diagonal(spec.chol, axis1=1, axis2=2)).sum(axis=1)  # (m,)
    with np.errstate(divide="ignore"):
        logw = np.log(spec.weights)
    return (logw[:, None] - 0.5 * spec.dim * _LOG_2PI - logdet[:, None] - 0.5 * maha).T


def gmm_log_pdf(spec: GMMSpec, X: np.ndarray) -> np.ndarray:
    """``(n,)`` log-density of the rows of ``X (n, d)`` under ``spec``."""
    check_instance(spec, "spec", GMMSpec)
    X = np.asarray(check_array(X, "X", shape=(None, spec.dim), kind="fiu"), dtype=float)
    lc = component_log_pdf(spec, X)
    top = lc.max(axis=1, keepdims=True)
    return (top + np.log(np.exp(lc - top).sum(axis=1, keepdims=True)))[:, 0]


def sample_gmm(
    spec: GMMSpec,
    n: int,
    rng: np.random.Generator,
    *,
    u: np.ndarray | None = None,
    z: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Draw ``n`` points: component by inverse CDF of ``u ~ U[0, 1)``, then ``mu + C z`` with ``z ~ N(0, I)``.

    ``u (n,)`` and ``z (n, d)`` may be given (common random numbers across sweep points); otherwise they
    are drawn from ``rng``.
    """
    check_instance(spec, "spec", GMMSpec)
    n = check_int(n, "n", low=0)
    check_rng(rng)
    u = rng.random(n) if u is None else np.asarray(check_array(u, "u", shape=(n,), kind="f"))
    z = (
        rng.standard_normal((n, spec.dim))
        if z is None
        else check_array(z, "z", shape=(n, spec.dim), kind="f")
    )
    labels = np.minimum(np.searchsorted(np.cumsum(spec.weights), u, side="right"), spec.n_components - 1)
    X = spec.means[labels] + np.einsum("nij,nj->ni", spec.chol[labels], z)
    return X, labels


def fit_gmm(X: np.ndarray, n_components: int, *, seed: int) -> GMMSpec:
    """EM fit of a full-covariance mixture with scikit-learn's defaults (as the official ``fit_gmm``).

    ``GaussianMixture(n_components)`` with k-means initialisation, ``tol=1e-3``, ``reg_covar=1e-6``,
    ``max_iter=100``, one initialisation; ``seed`` fixes its ``random_state`` (the official code leaves it
    unseeded). Raises ValueError when there are fewer rows than components (EM cannot start).
    """
    from sklearn.mixture import GaussianMixture  # heavy import, paid on the first fit only

    X = np.asarray(check_array(X, "X", ndim=2, kind="fiu"), dtype=float)
    n_components = check_int(n_components, "n_components", low=1)
    if X.shape[0] < n_components:
        raise ValueError(
            f"X has {X.shape[0]} rows for n_components={n_components}: EM needs at least one sample per "
            "component (raise n_samples or lower K + J + L)"
        )
    gm = GaussianMixture(n_components=n_components, random_state=int(seed)).fit(X)
    covs = 0.5 * (gm.covariances_ + gm.covariances_.transpose(0, 2, 1))
    w = gm.weights_ / gm.weights_.sum()
    return GMMSpec(gm.means_, covs, w)


def mixture_label_mi(spec: GMMSpec, n: int, rng: np.random.Generator) -> tuple[float, float]:
    """Monte-Carlo ``I(X; C)`` in nats between a draw X and its component label C, and its standard error.

    I(X; C) = H(C) + E[log p(C | X)], with the exact posterior log w_c N_c(x) - log p(x) (no density
    estimation); ``n`` draws.
    """
    check_instance(spec, "spec", GMMSpec)
    n = check_int(n, "n", low=2)
    X, c = sample_gmm(spec, n, rng)
    lc = component_log_pdf(spec, X)
    post = lc[np.arange(n), c] - gmm_log_pdf(spec, X)
    w = spec.weights[spec.weights > 0]
    h = float(-(w * np.log(w)).sum())
    return h + float(post.mean()), float(post.std(ddof=1) / np.sqrt(n))
