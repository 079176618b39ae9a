"""Rows for results.md, from the records only."""

from __future__ import annotations

from typing import Any

import numpy as np

from attention_hypernet.methods import MixerRun

__all__ = ["tables"]


def _ms(x: list[float]) -> str:
    a = np.asarray(x, float)
    return f"{np.mean(a):.3f} ± {np.std(a):.3f}" if len(a) > 1 else f"{a[0]:.3f}"


def tables(
    exact: dict[str, dict[str, float]], logic: dict[str, list[MixerRun]], sraven: dict[str, list[MixerRun]]
) -> dict[str, list[dict[str, Any]]]:
    rows = [
        {
            "mixer": m,
            "train R²": _ms([r.metrics["train"]["r2"] for r in rs]),
            "test R² (in-dist)": _ms([r.metrics["test"]["r2"] for r in rs]),
            "OOD R²": _ms([r.metrics["ood"]["r2"] for r in rs]),
            "probe R²": _ms([r.probe_r2 for r in rs]),
            "probe R² at init": _ms([r.probe_r2_init for r in rs]),
            "final loss": _ms([float(np.mean(r.losses[-20:])) for r in rs]),
        }
        for m, rs in logic.items()
    ]
    out: dict[str, list[dict[str, Any]]] = {"Fuzzy logic (mean ± sd over seeds)": rows}
    if sraven:
        out["sraven, report only (acc = all features right; per feature in brackets)"] = [
            {
                "mixer": m,
                **{
                    f"{s} acc": f"{_ms([r.metrics[s]['acc'] for r in rs])} "
                    f"({_ms([r.metrics[s]['acc_per_feature'] for r in rs])})"
                    for s in ("train", "test", "ood")
                },
            }
            for m, rs in sraven.items()
        ]
    out["Exactness (max abs error)"] = [
        {"dtype": k, "max": f"{max(v.values()):.2e}", "worst case": max(v, key=v.__getitem__)}
        for k, v in exact.items()
    ]
    return out
