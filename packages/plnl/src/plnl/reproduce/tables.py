"""Rows for results.md, from the records only."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from plnl.reproduce.claims import final_diagnostics

if TYPE_CHECKING:
    from plnl.reproduce.run import Records

__all__ = ["tables"]


def _ms(x: np.ndarray) -> str:
    return f"{np.mean(x):.3f} ± {np.std(x):.3f}"


def tables(records: Records) -> dict[str, list[dict[str, Any]]]:
    acc = []
    for m in records.chosen:
        rs = records.at(m)
        acc.append({
            "method": m, "lr (dev)": records.chosen[m], "dev acc": _ms(np.array([r.dev_acc for r in rs])),
            "test acc": _ms(np.array([r.test_acc for r in rs])),
            "per seed": " ".join(f"{r.test_acc:.3f}" for r in rs),
        })  # fmt: skip
    diag = []
    for m in records.chosen:
        if not records.at(m)[0].history:
            continue
        last = final_diagnostics(records, m)
        diag.append({"method": m, **{k: _ms(v) for k, v in last.items()}})
    return {
        "Test accuracy at the dev-chosen lr (mean ± sd over seeds)": acc,
        "PLG / NLE at the end of training (mean ± sd over seeds)": diag,
        "Tuning: mean dev accuracy per grid cell": [dict(r) for r in records.tuning],
    }
