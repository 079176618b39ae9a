"""Group metrics on the balanced test split (UrbanCars' protocol, code ``base_trainer._eval_split``) and rank
quality.

Alignment patterns (a1, a2) = ([s1 == y], [s2 == y]): ID = (1, 1); S1-conflict (UrbanCars "BG") = (0, 1);
S2-conflict ("CoObj") = (1, 0); both-conflict ("BG+CoObj") = (0, 0). Gaps are accuracy differences to the
ID accuracy (negative = a drop), as UrbanCars reports them. ``balanced`` is the mean of the four pattern
accuracies; ``worst_group`` the minimum over the 8 (class, pattern) groups.
"""

from __future__ import annotations

import numpy as np
import torch
from paperkit import check_array, check_instance, kendall_tau

__all__ = ["PATTERNS", "group_accuracies", "rank_quality"]

PATTERNS = {"id": (1, 1), "s1_conflict": (0, 1), "s2_conflict": (1, 0), "both_conflict": (0, 0)}


def group_accuracies(
    pred: torch.Tensor, y: torch.Tensor, s1: torch.Tensor, s2: torch.Tensor
) -> dict[str, float]:
    """Accuracies per alignment pattern, ``balanced``, ``worst_group``, ``mean`` and the three gaps.

    ``pred, y, s1, s2 (n,)`` integer tensors; ``y, s1, s2`` binary (the class and the two attributes)."""
    for t, name in ((pred, "pred"), (y, "y"), (s1, "s1"), (s2, "s2")):
        check_array(check_instance(t, name, torch.Tensor), name, kind="iu")
    if not (pred.shape == y.shape == s1.shape == s2.shape) or y.ndim != 1 or len(y) == 0:
        raise ValueError(
            "pred, y, s1 and s2 must be non-empty (n,) of one shape, got "
            f"{[tuple(t.shape) for t in (pred, y, s1, s2)]}"
        )
    for t, name in ((y, "y"), (s1, "s1"), (s2, "s2")):
        if not 0 <= int(t.min()) <= int(t.max()) <= 1:
            raise ValueError(f"{name} must be binary (0 or 1), got values {torch.unique(t).tolist()}")
    correct = (pred == y).double()
    a1, a2 = (s1 == y).long(), (s2 == y).long()
    out: dict[str, float] = {}
    for name, (p1, p2) in PATTERNS.items():
        m = (a1 == p1) & (a2 == p2)
        out[name] = float(correct[m].mean()) if bool(m.any()) else float("nan")
    group = 4 * y + 2 * a1 + a2
    counts = torch.bincount(group, minlength=int(group.max()) + 1)
    sums = torch.bincount(group, weights=correct, minlength=len(counts))
    present = counts > 0
    out["worst_group"] = float((sums[present] / counts[present]).min())
    out["balanced"] = float(np.nanmean([out[k] for k in PATTERNS]))
    out["mean"] = float(correct.mean())
    for k in ("s1_conflict", "s2_conflict", "both_conflict"):
        out[f"{k}_gap"] = out[k] - out["id"]
    return out


def rank_quality(ranks: torch.Tensor, aligned: torch.Tensor) -> dict[str, float]:
    """Kendall tau-b(rank, #aligned cues) (negative = spurious samples ranked first), the mean #aligned of the
    first and the last rank bucket, and the number of buckets (tau = 0 when either side is constant)."""
    check_array(check_instance(ranks, "ranks", torch.Tensor), "ranks", kind="iu")
    check_array(check_instance(aligned, "aligned", torch.Tensor), "aligned", kind="biuf")
    r, a = ranks.cpu().numpy(), aligned.cpu().numpy().astype(float)
    if r.shape != a.shape or r.ndim != 1 or r.size == 0:
        raise ValueError(f"ranks and aligned must be non-empty (n,) of one shape, got {r.shape}, {a.shape}")
    buckets = np.unique(r)
    tau = kendall_tau(r, a) if len(buckets) > 1 and len(np.unique(a)) > 1 else 0.0  # one bucket: no order
    return {
        "kendall_tau": tau,
        "first_bucket_aligned": float(a[r == buckets[0]].mean()),
        "last_bucket_aligned": float(a[r == buckets[-1]].mean()),
        "n_buckets": float(len(buckets)),
    }
