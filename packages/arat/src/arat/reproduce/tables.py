"""Tables for results.md, from the seed records only."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from arat.reproduce.run import SeedRecord

__all__ = ["tables"]

KEYS = ("clean", "pgd_ce", "pgd_cw", "apgd_ce", "worst", "clean_branch", "epoch_cpu")


def _summary(rows: Sequence[Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k in KEYS:
        v = np.array([getattr(r, k) for r in rows], dtype=float)
        out[k] = (
            f"{v.mean():.3f} ± {v.std(ddof=1) if len(v) > 1 else 0.0:.3f}" if np.isfinite(v).all() else "-"
        )
    return out


def tables(
    records: Sequence[SeedRecord], tune_rows: Sequence[dict[str, Any]], sweep: Sequence[dict[str, Any]] = ()
) -> dict[str, list[dict[str, Any]]]:
    methods = list(records[0].methods)
    main = [
        {"method": m, "lr": records[0].methods[m].lr, **_summary([r.methods[m] for r in records])}
        for m in methods
    ]
    out: dict[str, list[dict[str, Any]]] = {"accuracy (mean ± sd over seeds)": main}
    if records[0].conflict:
        out["gradient conflict (naive model)"] = [{"seed": r.seed, **r.conflict} for r in records]
    if tune_rows:
        out["lr tuning on the dev split"] = list(tune_rows)
    if sweep:
        out["ARAT gamma sweep (dev split, tuning budget; reported, not selected)"] = list(sweep)
    return out
