"""Rank-aware contrastive pairs and loss (official ``dataset/urbancars.py::__getitem__``,
``loss/contrastive_loss.py``).

Pairs: anchor i of class c and rank r; target rank ``t = min(r + gap, r_max(c))``; the positive is drawn
uniformly from the first non-empty same-class bucket of rank >= t (the code's fallback loop), the negative
uniformly from the anchor's own bucket (c, r). Since bucket r_max(c) is never empty, every anchor gets a
positive; at the top rank the positive comes from the anchor's own bucket (the code's behaviour).
``drop_top=True`` instead drops anchors whose positive would not be of a higher rank (the spec's reading).

Loss (cosine similarity s, temperature tau; the denominator sums over the whole batch of pairs):

    L_con = mean_i [ -s(a_i, p_i)/tau + log( sum_j exp(s(a_j, n_j)/tau) + sum_j exp(s(a_j, p_j)/tau) ) ]
"""

from __future__ import annotations

import torch
from paperkit import check_array, check_bool, check_instance, check_int, check_positive
from torch import nn

__all__ = ["rank_contrastive_loss", "sample_pairs"]


def rank_contrastive_loss(
    anchor: torch.Tensor, positive: torch.Tensor, negative: torch.Tensor, tau: float
) -> torch.Tensor:
    """Scalar L_con for ``(B, d)`` features (see the module docstring); computed with logsumexp."""
    tau = check_positive(tau, "tau")
    for t, name in ((anchor, "anchor"), (positive, "positive"), (negative, "negative")):
        check_array(check_instance(t, name, torch.Tensor), name, kind="f")
    if anchor.ndim != 2 or positive.shape != anchor.shape or negative.shape != anchor.shape:
        raise ValueError(
            f"anchor, positive and negative must be (B, d) of one shape, got {tuple(anchor.shape)}, "
            f"{tuple(positive.shape)}, {tuple(negative.shape)}"
        )
    s_pos = nn.functional.cosine_similarity(anchor, positive, dim=1) / tau
    s_neg = nn.functional.cosine_similarity(anchor, negative, dim=1) / tau
    return (torch.logsumexp(torch.cat([s_neg, s_pos]), 0) - s_pos).mean()


def sample_pairs(
    y: torch.Tensor,
    ranks: torch.Tensor,
    anchors: torch.Tensor,
    *,
    gap: int,
    generator: torch.Generator,
    drop_top: bool = False,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(anchor, positive, negative)`` index vectors for the anchors ``anchors (m,)`` (vectorised).

    ``y, ranks (n,)`` int64; ranks may hold -1 (the code's unranked value). Dropped anchors are removed
    from all three vectors.
    """
    gap = check_int(gap, "gap", low=1)
    drop_top = check_bool(drop_top, "drop_top")
    for t, name in ((y, "y"), (ranks, "ranks"), (anchors, "anchors")):
        check_array(check_instance(t, name, torch.Tensor), name, kind="i")
    if y.shape != ranks.shape or y.ndim != 1 or len(y) == 0:
        raise ValueError(f"y and ranks must be (n,) of one shape, got {tuple(y.shape)}, {tuple(ranks.shape)}")
    if int(y.min()) < 0:
        raise ValueError(f"y must hold class indices >= 0, got {int(y.min())}")
    if anchors.ndim != 1 or (len(anchors) and not (0 <= int(anchors.min()) <= int(anchors.max()) < len(y))):
        raise ValueError(f"anchors must be a vector of indices in 0..{len(y) - 1}, got shape "
                         f"{tuple(anchors.shape)}")  # fmt: skip
    generator = check_instance(generator, "generator", torch.Generator)
    r0 = ranks - ranks.min()
    span = int(r0.max()) + 1
    key = y * span + r0
    order = torch.argsort(key, stable=True)
    ukeys, counts = torch.unique_consecutive(key[order], return_counts=True)
    starts = torch.cumsum(counts, 0) - counts
    n_classes = int(y.max()) + 1
    r_max = torch.full((n_classes,), -1, dtype=r0.dtype, device=y.device).scatter_reduce(
        0, y, r0, reduce="amax"
    )
    ya, ra = y[anchors], r0[anchors]
    target = torch.minimum(ra + gap, r_max[ya])
    pos_bucket = torch.searchsorted(ukeys, ya * span + target)  # first non-empty bucket of rank >= target
    neg_bucket = torch.searchsorted(ukeys, key[anchors])
    keep = (ukeys[pos_bucket] % span > ra) if drop_top else torch.ones_like(ya, dtype=torch.bool)
    u = torch.rand(2, len(anchors), generator=generator, device=generator.device).to(y.device)

    def draw(bucket: torch.Tensor, uu: torch.Tensor) -> torch.Tensor:
        k = (uu * counts[bucket]).long().clamp(max=counts[bucket] - 1)
        return order[starts[bucket] + k]

    pos, neg = draw(pos_bucket, u[0]), draw(neg_bucket, u[1])
    return anchors[keep], pos[keep], neg[keep]
