"""MAP's dual: the exponential tilt p_λ ∝ p0 · exp(λᵀr), its log-partition, and the concave dual in λ ≥ 0.

Notation (paper Sec. 2-3; spec "The method, precisely"): ``R`` is the ``(m, n)`` reward matrix of n
reference samples (x_k, y_k) ~ p0 scored by m values, ``c`` the ``(m,)`` value palette, λ ≥ 0.

Joint normalisation (the official solver, ``AlignValues._dual_objective``)::

    w_k(λ) = softmax_k(λᵀR)                             self-normalised importance weights
    g_n(λ) = λᵀc − log( (1/n) Σ_k exp(λᵀR_k) )           the empirical dual
    ∇g_n   = c − R w(λ)                                  (realised levels ĉ(λ) = R w)
    ∇²g_n  = −Cov_w(R)                                   so g_n is concave
    KL(w ‖ 1/n) = Σ_k w_k log(n w_k) = g_n(λ*)           strong duality at the optimum

Per-prompt normalisation (the exact conditional solution): each prompt x keeps its probability 1/P and
its n_x samples are tilted within the prompt, so log Z becomes the mean over prompts of
``log( (1/n_x) Σ_{k∈x} exp(λᵀR_k) )``; the weights are ``softmax within x / P``; the same gradient and
duality identities hold with KL averaged over prompts.

Since every empirical KL is at most log n (joint; mean of log n_x per prompt), a dual value above it
certifies that the palette is infeasible (:func:`kl_ceiling`).

Kernels (``*_kernel``, :func:`dual_value`, :func:`dual_gradient`) take validated float64 arrays; the public
functions validate their arguments.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from paperkit import check_array, check_choice, check_instance, check_int

__all__ = [
    "NORMALIZATIONS",
    "Groups",
    "check_problem",
    "dual_gradient",
    "dual_objective",
    "dual_value",
    "effective_sample_size",
    "empirical_kl",
    "ess_kernel",
    "kl_ceiling",
    "kl_kernel",
    "log_partition",
    "realized_levels",
    "tilt_kernel",
    "tilt_weights",
]

NORMALIZATIONS = ("joint", "per_prompt")


@dataclass(frozen=True)
class Groups:
    """Samples grouped by prompt: ``order`` sorts samples by prompt, ``starts`` opens each segment."""

    order: np.ndarray  # (n,) int
    starts: np.ndarray  # (P,) int, into the sorted order
    counts: np.ndarray  # (P,) int
    inverse: np.ndarray  # (n,) int: the segment of each sample

    @classmethod
    def of(cls, prompt_ids: np.ndarray) -> Groups:
        order = np.argsort(prompt_ids, kind="stable")
        _, starts, counts = np.unique(prompt_ids[order], return_index=True, return_counts=True)
        inverse = np.repeat(np.arange(len(starts)), counts)
        inv = np.empty_like(inverse)
        inv[order] = inverse
        return cls(order, starts, counts, inv)

    @property
    def n_prompts(self) -> int:
        return len(self.starts)


def check_problem(
    R: object, c: object | None = None, prompt_ids: object | None = None, *, normalization: str = "joint"
) -> tuple[np.ndarray, np.ndarray | None, Groups | None]:
    """Validate ``R`` (m, n) finite, ``c`` (m,) finite, and the prompt grouping the normalisation needs."""
    check_choice(normalization, "normalization", NORMALIZATIONS)
    R_arr = np.asarray(check_array(R, "R", ndim=2, kind="fiu"), dtype=float)
    m, n = R_arr.shape
    if m == 0:
        raise ValueError("R must score at least one value (m >= 1 rows), got shape (0, n)")
    if n == 0:
        raise ValueError("R has no samples (n = 0 columns): draw reference samples first")
    c_arr = None
    if c is not None:
        c_arr = np.asarray(check_array(c, "c", ndim=1, kind="fiu"), dtype=float)
        if c_arr.shape != (m,):
            raise ValueError(f"c must have one target per value (shape ({m},)), got shape {c_arr.shape}")
    groups = None
    if normalization == "per_prompt":
        if prompt_ids is None:
            raise ValueError("normalization='per_prompt' needs prompt_ids (the prompt of each sample)")
        ids = np.asarray(check_array(prompt_ids, "prompt_ids", shape=(n,), kind="iu"))
        groups = Groups.of(ids)
    return R_arr, c_arr, groups


# ----------------------------------------------------------------------------------------------------
# kernels (validated float64 inputs)


def _scores(lam: np.ndarray, R: np.ndarray) -> np.ndarray:
    return lam @ R  # (n,)


def log_partition(lam: np.ndarray, R: np.ndarray, groups: Groups | None = None) -> float:
    """log E_{p0} exp(λᵀr) (joint) or E_x log E_{y|x} exp(λᵀr) (per prompt), by log-sum-exp."""
    s = _scores(lam, R)
    if groups is None:
        mx = s.max()
        return float(mx + np.log(np.exp(s - mx).sum()) - np.log(s.size))
    ss = s[groups.order]
    mx = np.maximum.reduceat(ss, groups.starts)
    lse = mx + np.log(np.add.reduceat(np.exp(ss - np.repeat(mx, groups.counts)), groups.starts))
    return float(np.mean(lse - np.log(groups.counts)))


def tilt_kernel(lam: np.ndarray, R: np.ndarray, groups: Groups | None = None) -> np.ndarray:
    """(n,) weights of the tilted sample, summing to 1: softmax(λᵀR), or per-prompt softmax / P."""
    s = _scores(lam, R)
    if groups is None:
        w = np.exp(s - s.max())
        return w / w.sum()
    mx = np.maximum.reduceat(s[groups.order], groups.starts)[groups.inverse]
    e = np.exp(s - mx)
    tot = np.add.reduceat(e[groups.order], groups.starts)[groups.inverse]
    return e / tot / groups.n_prompts


def dual_value(lam: np.ndarray, R: np.ndarray, c: np.ndarray, groups: Groups | None = None) -> float:
    """g(λ) = λᵀc − log Z(λ) (kernel of :func:`dual_objective`)."""
    return float(lam @ c) - log_partition(lam, R, groups)


def dual_gradient(lam: np.ndarray, R: np.ndarray, c: np.ndarray, groups: Groups | None = None) -> np.ndarray:
    """∇g(λ) = c − R w(λ)."""
    return c - R @ tilt_kernel(lam, R, groups)


def kl_kernel(lam: np.ndarray, R: np.ndarray, groups: Groups | None = None) -> float:
    """KL(p_λ ‖ p0) on the sample: Σ_k w_k log(n w_k) (joint), or the prompt average of the
    within-prompt KLs (per prompt)."""
    w = tilt_kernel(lam, R, groups)
    base = (
        np.full(w.size, 1.0 / w.size)
        if groups is None
        else 1.0 / (groups.counts[groups.inverse] * groups.n_prompts)
    )
    pos = w > 0
    return float(np.sum(w[pos] * np.log(w[pos] / base[pos])))


def ess_kernel(lam: np.ndarray, R: np.ndarray, groups: Groups | None = None) -> float:
    """Kish's ESS 1/Σ w² of the tilt weights (joint), or its mean over prompts (per prompt, out of n_x)."""
    w = tilt_kernel(lam, R, groups)
    if groups is None:
        return float(1.0 / np.sum(w**2))
    wp = w * groups.n_prompts
    return float(np.mean(1.0 / np.add.reduceat((wp**2)[groups.order], groups.starts)))


def kl_ceiling(n: int, groups: Groups | None = None) -> float:
    """The largest empirical KL any reweighting reaches: log n (joint), mean log n_x (per prompt)."""
    n = check_int(n, "n", low=1)
    if groups is not None:
        check_instance(groups, "groups", Groups)
    return float(np.log(n)) if groups is None else float(np.mean(np.log(groups.counts)))


# ----------------------------------------------------------------------------------------------------
# validated API


def _check_lam(lam: object, m: int) -> np.ndarray:
    arr = np.asarray(check_array(lam, "lam", ndim=1, kind="fiu"), dtype=float)
    if arr.shape != (m,):
        raise ValueError(f"lam must have one weight per value (shape ({m},)), got shape {arr.shape}")
    if np.any(arr < 0):
        raise ValueError(f"lam must be >= 0 (MAP's dual lives on λ ≥ 0), got min {arr.min():.6g}")
    return arr


def _check_kernel_args(
    lam: object, R: object, groups: object
) -> tuple[np.ndarray, np.ndarray, Groups | None]:
    R_arr, _, _ = check_problem(R)
    if groups is not None:
        check_instance(groups, "groups", Groups)
        assert isinstance(groups, Groups)
        if groups.inverse.shape != (R_arr.shape[1],):
            raise ValueError(
                f"groups must group the {R_arr.shape[1]} samples of R, got {groups.inverse.size}"
            )
    return _check_lam(lam, R_arr.shape[0]), R_arr, groups


def tilt_weights(lam: object, R: object, groups: Groups | None = None) -> np.ndarray:
    """(n,) weights of the tilted sample, summing to 1: softmax(λᵀR), or per-prompt softmax / P
    (``groups``: :meth:`Groups.of` of the prompt ids)."""
    return tilt_kernel(*_check_kernel_args(lam, R, groups))


def empirical_kl(lam: object, R: object, groups: Groups | None = None) -> float:
    """KL(p_λ ‖ p0) on the sample (validated :func:`kl_kernel`)."""
    return kl_kernel(*_check_kernel_args(lam, R, groups))


def effective_sample_size(lam: object, R: object, groups: Groups | None = None) -> float:
    """Kish's ESS of the tilt weights (validated :func:`ess_kernel`)."""
    return ess_kernel(*_check_kernel_args(lam, R, groups))


def dual_objective(
    lam: object, R: object, c: object, *, normalization: str = "joint", prompt_ids: object | None = None
) -> float:
    """g(λ) = λᵀc − log Z(λ) on the sample (module docstring); ``lam``: (m,), ``R``: (m, n), ``c``: (m,)."""
    R_arr, c_arr, groups = check_problem(R, c, prompt_ids, normalization=normalization)
    assert c_arr is not None
    return dual_value(_check_lam(lam, R_arr.shape[0]), R_arr, c_arr, groups)


def realized_levels(
    lam: object, R: object, *, normalization: str = "joint", prompt_ids: object | None = None
) -> np.ndarray:
    """(m,) E_{p_λ} r estimated by self-normalised importance sampling: R w(λ)."""
    R_arr, _, groups = check_problem(R, None, prompt_ids, normalization=normalization)
    return R_arr @ tilt_kernel(_check_lam(lam, R_arr.shape[0]), R_arr, groups)
