"""Exact information quantities of discrete distributions (natural logarithms, nats).

    H(p)        = -sum_x p(x) log p(x)
    KL(p || q)  =  sum_x p(x) log(p(x) / q(x))            (+inf where q = 0 < p)
    TV(p, q)    =  1/2 sum_x |p(x) - q(x)|
    I(X; Y)     =  H(X) + H(Y) - H(X, Y)                  for a joint pmf P[x, y]
    I(X; Y | Z) =  H(X, Z) + H(Y, Z) - H(X, Y, Z) - H(Z)

The paper's pipeline S_anchor -> p -> S_gen is a Markov chain (Sec. 3): :func:`markov_chain` builds its
joint pmf from a prior and two channels, so that the data-processing inequality
I(S_anchor; S_gen) <= I(S_anchor; p) and the triangle decomposition of the divergence,
TV(D, D_gen) <= TV(D, D_M) + TV(D_M, D_gen) (task + generation divergence), can be checked exactly.
"""

from __future__ import annotations

import numpy as np
from paperkit import check_array, check_int

__all__ = [
    "conditional_mi",
    "entropy",
    "kl",
    "markov_chain",
    "mutual_information",
    "pinsker_bound",
    "pmf_table",
    "tv",
    "tv_decomposition",
]

_ATOL = 1e-9


def pmf_table(p: np.ndarray, name: str) -> np.ndarray:
    """``p`` as a float array: finite, non-empty, non-negative and summing to 1 (ValueError naming it)."""
    a = np.asarray(check_array(p, name, kind="fiu"), dtype=float)
    if a.size == 0:
        raise ValueError(f"{name} must be a non-empty probability table")
    if np.any(a < 0) or abs(a.sum() - 1.0) > 1e-8:
        raise ValueError(f"{name} must be non-negative and sum to 1, got sum {a.sum():.6g}")
    return a


def _h(a: np.ndarray) -> float:
    nz = a[a > 0]
    return float(-(nz * np.log(nz)).sum())


def entropy(p: np.ndarray) -> float:
    """Shannon entropy of a pmf of any shape (the joint entropy for a table)."""
    return _h(pmf_table(p, "p"))


def kl(p: np.ndarray, q: np.ndarray) -> float:
    """KL(p || q); ``inf`` where q puts zero mass on a point of p's support."""
    a, b = pmf_table(p, "p"), pmf_table(q, "q")
    if a.shape != b.shape:
        raise ValueError(f"p and q must have the same shape, got {a.shape} and {b.shape}")
    s = a > 0
    if np.any(b[s] == 0):
        return float("inf")
    return float((a[s] * np.log(a[s] / b[s])).sum())


def tv(p: np.ndarray, q: np.ndarray) -> float:
    """Total variation distance 1/2 sum |p - q| (in [0, 1])."""
    a, b = pmf_table(p, "p"), pmf_table(q, "q")
    if a.shape != b.shape:
        raise ValueError(f"p and q must have the same shape, got {a.shape} and {b.shape}")
    return float(0.5 * np.abs(a - b).sum())


def pinsker_bound(p: np.ndarray, q: np.ndarray) -> float:
    """sqrt(KL(p || q) / 2), Pinsker's upper bound on TV(p, q)."""
    return float(np.sqrt(kl(p, q) / 2))


def mutual_information(joint: np.ndarray) -> float:
    """I(X; Y) of a 2-d joint pmf ``joint[x, y]``."""
    P = pmf_table(joint, "joint")
    if P.ndim != 2:
        raise ValueError(f"joint must be a 2-d table P[x, y], got ndim={P.ndim}")
    return max(_h(P.sum(1)) + _h(P.sum(0)) - _h(P), 0.0)


def conditional_mi(joint: np.ndarray, x: int, y: int, z: int) -> float:
    """I(X; Y | Z) of a 3-d pmf whose axes ``x``, ``y``, ``z`` (a permutation of 0, 1, 2) are X, Y, Z."""
    P = pmf_table(joint, "joint")
    x, y, z = check_int(x, "x"), check_int(y, "y"), check_int(z, "z")
    if P.ndim != 3 or sorted((x, y, z)) != [0, 1, 2]:
        raise ValueError("joint must be a 3-d table and (x, y, z) a permutation of its axes (0, 1, 2)")
    P = np.transpose(P, (x, y, z))
    val = _h(P.sum(1)) + _h(P.sum(0)) - _h(P) - _h(P.sum((0, 1)))
    return max(val, 0.0)


def markov_chain(prior: np.ndarray, channel_prompt: np.ndarray, channel_gen: np.ndarray) -> np.ndarray:
    """Joint pmf ``P[a, p, g] = prior[a] T1[a, p] T2[p, g]`` of S_anchor -> p -> S_gen.

    ``channel_prompt (A, P)`` and ``channel_gen (P, G)`` are row-stochastic (each row a pmf).
    """
    a = pmf_table(prior, "prior")
    T1 = np.asarray(
        check_array(channel_prompt, "channel_prompt", shape=(a.shape[0], None), kind="fiu"), float
    )
    T2 = np.asarray(check_array(channel_gen, "channel_gen", shape=(T1.shape[1], None), kind="fiu"), float)
    for name, T in (("channel_prompt", T1), ("channel_gen", T2)):
        if np.any(T < 0) or np.abs(T.sum(axis=1) - 1).max() > 1e-8:
            raise ValueError(f"{name} must be row-stochastic (non-negative rows summing to 1)")
    return a[:, None, None] * T1[:, :, None] * T2[None, :, :]


def tv_decomposition(D: np.ndarray, D_M: np.ndarray, D_gen: np.ndarray) -> dict[str, float]:
    """The terms of TV(D, D_gen) <= TV(D, D_M) + TV(D_M, D_gen): total, task and generation divergence."""
    total, task, gen = tv(D, D_gen), tv(D, D_M), tv(D_M, D_gen)
    return {"total": total, "task": task, "generation": gen, "slack": task + gen - total}
