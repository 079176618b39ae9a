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
    records: Sequence[SeedRecord], tune_rows: Sequence[dict[str, Any]]
) -> dict[str, list[dict[str, Any]]]:
    methods = list(records[0].methods)
    main = [
        {"method": m, "lr": records[0].methods[m].lr, **_summary([r.methods[m] for r in records])}
        for m in methods
    ]
    out: dict[str, list[dict[str, Any]]] = {"accuracy (mean ± sd over seeds)": main}
    first = records[0]
    if first.gamma_sweep:
        rows = [
            {"gamma": first.methods[m].gamma, **_summary([first.methods[m]])}
            for m in ("splitbn", "arat")
            if m in first.methods
        ]
        rows += [{"gamma": float(g), **_summary([rec])} for g, rec in first.gamma_sweep.items()]
        out[f"ARAT gamma sweep (seed {first.seed})"] = sorted(rows, key=lambda r: r["gamma"])
    if records[0].conflict:
        out["gradient conflict (naive model)"] = [{"seed": r.seed, **r.conflict} for r in records]
    if tune_rows:
        out["lr tuning on the dev split"] = list(tune_rows)
    return out
