r"""RSA: comparing a model RDM with subjects' brain RDMs, noise ceilings and permutation tests.

Over the M = S (S - 1) / 2 entries of the strict upper triangles (102 stimuli: 5,151 entries):

- score per subject :math:`\rho_s = \mathrm{Spearman}(\mathrm{triu}\,D^{model}, \mathrm{triu}\,D^{s})`,
  reported :math:`R = \frac{1}{N}\sum_s \rho_s` with the SEM over subjects (Net2Brain ``RSA.rsa_fmri``);
  ``method="kendall"`` uses Kendall's tau-a (ties count as neither concordant nor discordant, the
  denominator is M (M - 1) / 2; rsatoolbox's ``"tau-a"``).
- noise ceilings (Net2Brain ``NoiseCeiling``): the upper one compares each subject with the mean RDM of
  all subjects, the lower one with the mean of the others (leave one subject out). Net2Brain averages
  the squared correlations and reports the square root (``convention="net2brain"``, the default: the
  paper's numbers); ``convention="rsatoolbox"`` averages the correlations themselves and, for rank
  methods, pools rank-transformed RDMs (rsatoolbox ``boot_noise_ceiling``).
- permutation test (official ``statistical_significance.py``): P random stimulus permutations applied to
  the rows and columns of the model RDM; the null statistic is the subject-mean Spearman;
  :math:`p = \#\{|R_{null}| \ge |R_{obs}|\} / P` (two-sided, no +1 correction, so p can be 0;
  ``correction="plus-one"`` gives (count + 1) / (P + 1)). Two models are compared with the null of the
  difference under the same permutations.

Fast path: the ranks of a permuted RDM's triangle equal the permuted ranks, so the ranks are computed
once, scattered into a square matrix and gathered under each permutation (O(P M) instead of
O(P M log M)); the subjects' standardised ranks are stacked so one matrix product gives every rho.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from paperkit import check_array, check_choice, check_int, check_seed

from video_brain_rsa.dissimilarity import upper

__all__ = [
    "CONVENTIONS",
    "RSA_METHODS",
    "PermutationResult",
    "Score",
    "average_ranks",
    "compare_models",
    "kendall_tau_a",
    "noise_ceiling",
    "null_scores",
    "permutation_test",
    "rsa_score",
    "stack_checked",
    "standardised_ranks",
]

RSA_METHODS = ("spearman", "kendall")
CONVENTIONS = ("net2brain", "rsatoolbox")


@dataclass(frozen=True)
class Score:
    """``mean`` of ``per_subject`` ``(N,)`` and its standard error ``sem`` (ddof = 1; 0 for one subject)."""

    mean: float
    sem: float
    per_subject: np.ndarray


@dataclass(frozen=True)
class PermutationResult:
    """``p`` value, the ``null`` ``(n_perm,)`` of subject-mean scores, and the ``observed`` score."""

    p: float
    null: np.ndarray
    observed: float


def _square(d: object, name: str) -> np.ndarray:
    a = np.asarray(check_array(d, name), dtype=np.float64)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError(f"{name} must be a square (S, S) RDM, got shape {a.shape}")
    if a.shape[0] < 4:
        raise ValueError(
            f"{name} must compare at least 4 stimuli (Spearman needs >= 3 pairs), got {a.shape[0]}"
        )
    _check_symmetric(a, name)
    return a


def _check_symmetric(a: np.ndarray, name: str) -> None:
    # only the strict upper triangle is read, so an asymmetric matrix (a similarity or cross-correlation
    # matrix passed by mistake) would be scored silently on half of its entries
    gap = np.abs(a - np.swapaxes(a, -1, -2))
    if gap.size and gap.max() > 1e-8 * max(1.0, float(np.abs(a).max())):
        raise ValueError(
            f"{name} must be symmetric RDMs (d[i, j] == d[j, i]); max |d - d.T| = {gap.max():.3g}"
        )


def stack_checked(brain_rdms: object, name: str = "brain_rdms") -> np.ndarray:
    """``brain_rdms`` as a float64 ``(N, S, S)`` array, N >= 1, S >= 4 (``ValueError`` naming ``name``)."""
    b = np.asarray(check_array(brain_rdms, name), dtype=np.float64)
    if b.ndim != 3 or b.shape[1] != b.shape[2]:
        raise ValueError(f"{name} must be an array of shape (subjects, S, S), got shape {b.shape}")
    if b.shape[0] < 1 or b.shape[1] < 4:
        raise ValueError(f"{name} must hold >= 1 subject and >= 4 stimuli, got shape {b.shape}")
    _check_symmetric(b, name)
    return b


def _stack(brain_rdms: object, s: int | None = None) -> np.ndarray:
    b = stack_checked(brain_rdms)
    if s is not None and b.shape[1] != s:
        raise ValueError(
            f"model_rdm and brain_rdms must compare the same stimuli: model RDM is {s} x {s}, "
            f"brain RDMs are {b.shape[1]} x {b.shape[2]}"
        )
    return b


def average_ranks(v: np.ndarray) -> np.ndarray:
    """Ranks 1..M along the last axis, ties sharing their mean rank (scipy's ``rankdata``, vectorised)."""
    v = np.asarray(check_array(v, "v"), dtype=np.float64)
    if v.ndim < 1 or v.shape[-1] == 0:
        raise ValueError(f"v must have a non-empty last axis, got shape {v.shape}")
    flat = v.reshape(-1, v.shape[-1])
    rows, m = flat.shape
    order = np.argsort(flat, axis=1, kind="stable")
    sv = np.take_along_axis(flat, order, axis=1)
    starts = np.ones((rows, m), dtype=bool)
    starts[:, 1:] = sv[:, 1:] != sv[:, :-1]
    gid = np.cumsum(starts.ravel()) - 1  # tie groups never span rows: each row starts a group
    pos = np.tile(np.arange(1, m + 1, dtype=np.float64), rows)
    mean = np.bincount(gid, weights=pos) / np.bincount(gid)
    out = np.empty_like(flat)
    np.put_along_axis(out, order, mean[gid].reshape(rows, m), axis=1)
    return out.reshape(v.shape)


def standardised_ranks(v: np.ndarray) -> np.ndarray:
    """Average ranks along the last axis, centred and scaled to unit norm (so dot products are rho).

    A constant vector has no ranks to correlate: ``ValueError``.
    """
    r = average_ranks(v)
    r = r - r.mean(axis=-1, keepdims=True)
    norm = np.linalg.norm(r, axis=-1, keepdims=True)
    if np.any(norm == 0):
        raise ValueError("an RDM is constant over its upper triangle: its rank correlation is undefined")
    return r / norm


def kendall_tau_a(x: np.ndarray, y: np.ndarray, *, chunk: int = 512) -> float:
    """Kendall's tau-a of two vectors ``(M,)``: sum of sign products over pairs / (M (M - 1) / 2).

    Exact, O(M^2) memory-light (rows in chunks); for RDM triangles of up to a few thousand stimuli pairs.
    """
    x = np.asarray(check_array(x, "x", ndim=1), dtype=np.float64)
    y = np.asarray(check_array(y, "y", shape=x.shape), dtype=np.float64)
    chunk = check_int(chunk, "chunk", low=1)
    m = x.size
    if m < 2:
        raise ValueError(f"x and y must hold at least 2 entries, got {m}")
    total = 0.0
    for a in range(0, m, chunk):
        sx = np.sign(x[a : a + chunk, None] - x[None, :])
        sy = np.sign(y[a : a + chunk, None] - y[None, :])
        total += float(np.einsum("ij,ij->", sx, sy))
    return total / (m * (m - 1))  # each unordered pair counted twice


def _per_subject(model_vec: np.ndarray, brain_vecs: np.ndarray, method: str) -> np.ndarray:
    if method == "kendall":
        return np.array([kendall_tau_a(model_vec, b) for b in brain_vecs])
    return standardised_ranks(brain_vecs) @ standardised_ranks(model_vec)


def _score(per: np.ndarray) -> Score:
    sem = float(np.std(per, ddof=1) / np.sqrt(per.size)) if per.size > 1 else 0.0
    return Score(float(per.mean()), sem, per)


def rsa_score(model_rdm: np.ndarray, brain_rdms: np.ndarray, *, method: str = "spearman") -> Score:
    """Score of ``model_rdm`` ``(S, S)`` against ``brain_rdms`` ``(N, S, S)``: mean rho over subjects."""
    m = _square(model_rdm, "model_rdm")
    b = _stack(brain_rdms, m.shape[0])
    method = check_choice(method, "method", RSA_METHODS)
    return _score(_per_subject(upper(m), upper(b), method))


def noise_ceiling(
    brain_rdms: np.ndarray, *, method: str = "spearman", convention: str = "net2brain"
) -> tuple[float, float]:
    """``(lower, upper)`` noise ceiling of ``brain_rdms`` ``(N, S, S)``, N >= 2 subjects.

    Upper: each subject against the mean of all; lower: against the mean of the others.
    """
    b = _stack(brain_rdms)
    if b.shape[0] < 2:
        raise ValueError(f"brain_rdms must hold at least 2 subjects for a noise ceiling, got {b.shape[0]}")
    method = check_choice(method, "method", RSA_METHODS)
    convention = check_choice(convention, "convention", CONVENTIONS)
    v = upper(b)
    if convention == "rsatoolbox":  # pool rank-transformed RDMs, as rsatoolbox's pool_rdm does for ranks
        v = average_ranks(v)
    n = v.shape[0]
    total = v.sum(axis=0)
    lo = np.array([_per_subject((total - v[s]) / (n - 1), v[s : s + 1], method)[0] for s in range(n)])
    hi = np.array([_per_subject(total / n, v[s : s + 1], method)[0] for s in range(n)])
    if convention == "net2brain":
        return float(np.sqrt(np.mean(lo**2))), float(np.sqrt(np.mean(hi**2)))
    return float(lo.mean()), float(hi.mean())


def _permutations(s: int, n_perm: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.argsort(rng.random((n_perm, s)), axis=1)


def null_scores(model_rdm: np.ndarray, brain_rdms: np.ndarray, perms: np.ndarray) -> np.ndarray:
    """``(P,)`` subject-mean Spearman of the model RDM under each permutation ``perms`` ``(P, S)``.

    Kernel of :func:`permutation_test` (no checks): ranks once, then gathers.
    """
    s = model_rdm.shape[0]
    i, j = np.triu_indices(s, k=1)
    ranks = np.zeros((s, s))
    ranks[i, j] = standardised_ranks(model_rdm[i, j])
    ranks = ranks + ranks.T
    brain_mean = standardised_ranks(brain_rdms[:, i, j]).mean(axis=0)
    out = np.empty(len(perms))
    for a in range(0, len(perms), 256):  # chunks keep the gathered block at 256 x M floats
        p = perms[a : a + 256]
        out[a : a + 256] = ranks[p[:, i], p[:, j]] @ brain_mean
    return out


def _p_value(null: np.ndarray, observed: float, correction: str) -> float:
    count = int(np.sum(np.abs(null) >= abs(observed) - 1e-12))
    if correction == "plus-one":
        return (count + 1) / (null.size + 1)
    return count / null.size


def permutation_test(
    model_rdm: np.ndarray,
    brain_rdms: np.ndarray,
    *,
    n_perm: int = 1000,
    seed: int = 0,
    correction: str = "none",
) -> PermutationResult:
    """Two-sided stimulus-permutation test of the subject-mean Spearman score (official convention)."""
    m = _square(model_rdm, "model_rdm")
    b = _stack(brain_rdms, m.shape[0])
    n_perm = check_int(n_perm, "n_perm", low=1)
    correction = check_choice(correction, "correction", ("none", "plus-one"))
    perms = _permutations(m.shape[0], n_perm, check_seed(seed))
    observed = rsa_score(m, b).mean
    null = null_scores(m, b, perms)
    return PermutationResult(_p_value(null, observed, correction), null, observed)


def compare_models(
    rdm_a: np.ndarray,
    rdm_b: np.ndarray,
    brain_rdms: np.ndarray,
    *,
    n_perm: int = 1000,
    seed: int = 0,
    correction: str = "none",
) -> PermutationResult:
    """Test R(a) - R(b) against the difference of the two nulls under the same permutations."""
    a, bb = _square(rdm_a, "rdm_a"), _square(rdm_b, "rdm_b")
    if a.shape != bb.shape:
        raise ValueError(f"rdm_a and rdm_b must have the same size, got {a.shape} and {bb.shape}")
    b = _stack(brain_rdms, a.shape[0])
    n_perm = check_int(n_perm, "n_perm", low=1)
    correction = check_choice(correction, "correction", ("none", "plus-one"))
    perms = _permutations(a.shape[0], n_perm, check_seed(seed))
    observed = rsa_score(a, b).mean - rsa_score(bb, b).mean
    null = null_scores(a, b, perms) - null_scores(bb, b, perms)
    return PermutationResult(_p_value(null, observed, correction), null, observed)
