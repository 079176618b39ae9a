"""Rows for results.md, from the records only."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

__all__ = ["tables"]

COLUMNS = ("worst_group", "both_conflict", "s1_conflict", "s2_conflict", "id", "balanced")


def _ms(x: Sequence[float]) -> str:
    return f"{np.mean(x):.3f} ± {np.std(x):.3f}"


def tables(records: Sequence[Any], metrics: Mapping[str, Any]) -> dict[str, list[dict[str, Any]]]:
    methods = list(dict.fromkeys(r.method for r in records))
    rows = []
    for m in methods:
        rs = [r for r in records if r.method == m]
        row: dict[str, Any] = {"method": m, "lr": metrics["lr"][m]}
        row |= {c: _ms([r.test[c] for r in rs]) for c in COLUMNS}
        rows.append(row)
    ranks = [
        {"method": r.method, "seed": r.seed, "Kendall tau": f"{r.rank['kendall_tau']:.3f}",
         "buckets": int(r.rank["n_buckets"]),
         "first bucket #aligned": f"{r.rank['first_bucket_aligned']:.2f}",
         "last bucket #aligned": f"{r.rank['last_bucket_aligned']:.2f}", "remaining per epoch": r.remaining}
        for r in records if r.rank is not None
    ]  # fmt: skip
    out = {"Test accuracy by alignment group (mean ± sd over seeds)": rows, "Rankings": ranks}
    if metrics["tuning"]:
        out["Tuning grid (dev split)"] = list(metrics["tuning"])
    return out
