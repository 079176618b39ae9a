"""Synthesised recourse supervision: cost-weighted pairing of negatives with positives.

For every source x⁻ ∈ D⁻ and candidate x⁺ ∈ D⁺ (official code ``data/pair_data.py::StochasticPairsImmut``):

    w(x⁻, x⁺) = exp(−λ ‖x⁻ − x⁺‖_p) · 1[x⁻_imm = x⁺_imm]

the K largest weights per source are kept and normalised to a categorical distribution, from which one
partner is drawn per source and epoch. The distance matrix is computed in row chunks, so memory is
O(chunk · |D⁺|) rather than O(|D⁻| · |D⁺| · d).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from paperkit.validation import check_int

__all__ = ["PairDistribution", "PairSampler", "lp_distances", "pair_distribution", "pair_weights_dense"]


def _check_pair_inputs(
    X_neg: np.ndarray, X_pos: np.ndarray, lam: float, p: float, imm_mask: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    X_neg = np.asarray(X_neg, dtype=np.float64)
    X_pos = np.asarray(X_pos, dtype=np.float64)
    if X_neg.ndim != 2 or X_pos.ndim != 2:
        raise ValueError(f"X_neg and X_pos must be 2-D (n, d), got shapes {X_neg.shape} and {X_pos.shape}")
    if X_neg.shape[1] != X_pos.shape[1]:
        raise ValueError(
            f"X_neg has {X_neg.shape[1]} features but X_pos has {X_pos.shape[1]}; they must match"
        )
    if len(X_pos) == 0:
        raise ValueError("no positives to pair with: X_pos is empty")
    if not (np.all(np.isfinite(X_neg)) and np.all(np.isfinite(X_pos))):
        raise ValueError("X_neg and X_pos must be finite (no NaN or inf)")
    if not np.isfinite(lam) or lam < 0:
        raise ValueError(f"lam must be a finite number >= 0, got {lam!r}")
    if not p >= 1:
        raise ValueError(f"p must be >= 1 (an L_p cost), got {p!r}")
    if imm_mask is not None:
        imm_mask = np.asarray(imm_mask, dtype=bool)
        if imm_mask.shape != (X_neg.shape[1],):
            raise ValueError(
                f"imm_mask must have one entry per feature ({X_neg.shape[1]}), got shape {imm_mask.shape}"
            )
    return X_neg, X_pos, imm_mask


def lp_distances(A: np.ndarray, B: np.ndarray, p: float) -> np.ndarray:
    """All pairwise l_p distances, ``A: (n, d)`` x ``B: (m, d)`` -> ``(n, m)``; inputs trusted (a kernel of
    the pair sampler and the NNR baseline, which validate their own inputs)."""
    diff = np.abs(A[:, None, :] - B[None, :, :])
    if p == 1:
        return diff.sum(-1)
    return np.power(np.power(diff, p).sum(-1), 1.0 / p)


def pair_weights_dense(
    X_neg: np.ndarray, X_pos: np.ndarray, lam: float, p: float = 1.0, imm_mask: np.ndarray | None = None
) -> np.ndarray:
    """The unnormalised weights w(x⁻, x⁺) = exp(−λ‖x⁻ − x⁺‖_p)·1[immutables equal], all pairs.

    Args:
        X_neg: (n, d) sources. X_pos: (m, d) candidates. lam: λ >= 0. p: the norm's order.
        imm_mask: (d,) bool, True for immutable features (``None``: none).

    Returns:
        (n, m) float64 weights. Memory O(n·m·d): use :func:`pair_distribution` for large inputs.
    """
    X_neg, X_pos, imm_mask = _check_pair_inputs(X_neg, X_pos, lam, p, imm_mask)
    w = np.exp(-lam * lp_distances(X_neg, X_pos, p))
    if imm_mask is not None and imm_mask.any():
        same = np.all(X_neg[:, None, imm_mask] == X_pos[None, :, imm_mask], axis=-1)
        w = w * same
    return w


@dataclass(frozen=True)
class PairDistribution:
    """Top-K categorical partner distributions, one row a source.

    Attributes:
        idx: (n, K) int64 indices into X_pos, nearest first.
        prob: (n, K) float64; each kept row sums to 1 (zeros where fewer than K partners are admissible).
        keep: (n,) bool, False for sources with no admissible partner (every immutable mismatch).
    """

    idx: np.ndarray
    prob: np.ndarray
    keep: np.ndarray


def pair_distribution(
    X_neg: np.ndarray,
    X_pos: np.ndarray,
    lam: float,
    k: int = 1000,
    p: float = 1.0,
    imm_mask: np.ndarray | None = None,
    chunk: int = 256,
) -> PairDistribution:
    """Top-k pairing distribution of each negative over the positives (official ``StochasticPairsImmut``).

    Args:
        X_neg: (n, d) sources x⁻. X_pos: (m, d) candidates x⁺. lam: λ >= 0, cost weight per unit of
            ‖·‖_p. k: partners kept per source; k > m means k = m. p: cost norm (official ``P: 1``).
        imm_mask: (d,) bool immutable features; a candidate whose immutables differ gets weight 0.
        chunk: rows of the distance matrix computed at once.

    Returns:
        :class:`PairDistribution`. Probabilities are softmax(−λ·dist) over the kept partners, i.e. the
        normalised weights computed in log space (no underflow for large λ·dist). Sources without any
        admissible partner are flagged ``keep=False`` with a warning (the official code divides by zero).
    """
    X_neg, X_pos, imm_mask = _check_pair_inputs(X_neg, X_pos, lam, p, imm_mask)
    check_int(k, "k", low=1)
    n, m = len(X_neg), len(X_pos)
    kk = min(int(k), m)
    idx = np.zeros((n, kk), dtype=np.int64)
    prob = np.zeros((n, kk), dtype=np.float64)
    keep = np.ones(n, dtype=bool)
    for s in range(0, n, chunk):
        A = X_neg[s : s + chunk]
        dist = lp_distances(A, X_pos, p)
        if imm_mask is not None and imm_mask.any():
            same = np.all(A[:, None, imm_mask] == X_pos[None, :, imm_mask], axis=-1)
            dist = np.where(same, dist, np.inf)
        if kk < m:
            part = np.argpartition(dist, kk - 1, axis=1)[:, :kk]
        else:
            part = np.broadcast_to(np.arange(m), (len(A), m)).copy()
        d_part = np.take_along_axis(dist, part, axis=1)
        order = np.argsort(d_part, axis=1, kind="stable")
        part = np.take_along_axis(part, order, axis=1)
        d_part = np.take_along_axis(d_part, order, axis=1)
        finite = np.isfinite(d_part)
        logits = np.where(finite, -lam * np.where(finite, d_part, 0.0), -np.inf)
        row_max = logits.max(axis=1, keepdims=True)
        ok = np.isfinite(row_max[:, 0])
        e = np.where(finite, np.exp(logits - np.where(ok[:, None], row_max, 0.0)), 0.0)
        z = e.sum(axis=1, keepdims=True)
        prob[s : s + chunk] = np.divide(e, z, out=np.zeros_like(e), where=z > 0)
        idx[s : s + chunk] = part
        keep[s : s + chunk] = ok
    if not keep.all():
        warnings.warn(
            f"{int((~keep).sum())} of {n} negatives share their immutable features with no positive; "
            "they are left out of the training pairs",
            RuntimeWarning,
            stacklevel=2,
        )
    return PairDistribution(idx=idx, prob=prob, keep=keep)


class PairSampler:
    """Draws one partner x⁺ per source each call (fresh pairs every epoch, as the official data set).

    Args:
        X_neg: (n, d) sources; y_neg: (n,) their labels (the encoder's label token in training).
        X_pos: (m, d) candidates; lam, k, p, imm_mask: see :func:`pair_distribution`.
    """

    def __init__(
        self,
        X_neg: np.ndarray,
        y_neg: np.ndarray,
        X_pos: np.ndarray,
        lam: float,
        k: int = 1000,
        p: float = 1.0,
        imm_mask: np.ndarray | None = None,
    ) -> None:
        dist = pair_distribution(X_neg, X_pos, lam, k=k, p=p, imm_mask=imm_mask)
        keep = dist.keep
        self.X_neg = np.asarray(X_neg, dtype=np.float64)[keep]
        self.y_neg = np.asarray(y_neg, dtype=np.float64)[keep]
        self.X_pos = np.asarray(X_pos, dtype=np.float64)
        self.idx = dist.idx[keep]
        self.prob = dist.prob[keep]
        cdf = np.cumsum(self.prob, axis=1)
        # Close every row at its last admissible partner, so round-off never selects a zero-weight slot.
        last = (self.prob > 0).shape[1] - 1 - np.argmax((self.prob > 0)[:, ::-1], axis=1)
        cdf[np.arange(cdf.shape[1])[None, :] >= last[:, None]] = 1.0
        self._cdf = cdf

    def __len__(self) -> int:
        return len(self.X_neg)

    def sample_index(self, rng: np.random.Generator) -> np.ndarray:
        """(n,) int64: the drawn partner's index into X_pos, one per kept source."""
        u = rng.random((len(self), 1))
        col = (self._cdf < u).sum(axis=1)
        col = np.minimum(col, self.idx.shape[1] - 1)
        return self.idx[np.arange(len(self)), col]

    def sample(self, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """(x_neg (n, d), x_pos (n, d)): every kept source with one freshly drawn partner."""
        return self.X_neg, self.X_pos[self.sample_index(rng)]
