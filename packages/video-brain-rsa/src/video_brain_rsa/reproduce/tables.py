"""Rows for results.md, from the per-seed records only."""

from __future__ import annotations

from typing import Any

import numpy as np

from video_brain_rsa.data import ROIS

__all__ = ["tables"]


def _ms(x: list[float]) -> str:
    return f"{np.mean(x):.3f} ± {np.std(x):.3f}"


def tables(records: list[dict[str, Any]], tuning: list[dict[str, Any]]) -> dict[str, list]:
    models = list(records[0]["models"])
    scores = [
        {"model": m, **{roi: _ms([r["models"][m]["loso"][roi] for r in records]) for roi in ROIS},
         "dev accuracy": _ms([r["models"][m]["dev_accuracy"] for r in records])}
        for m in models
    ]  # fmt: skip
    in_sample = [
        {"model": m, **{roi: _ms([r["models"][m]["in_sample"][roi] for r in records]) for roi in ROIS}}
        for m in models
    ]
    hand = [{"baseline": n, **{roi: _ms([r["hand"][n][roi] for r in records]) for roi in ROIS}}
            for n in records[0]["hand"]]  # fmt: skip
    ceil = [{"ROI": roi, "LNC": _ms([r["ceilings"][roi][0] for r in records]),
             "UNC": _ms([r["ceilings"][roi][1] for r in records]),
             "noise sd": _ms([r["noise"][roi] for r in records])} for roi in ROIS]  # fmt: skip
    best = [{"seed": r["seed"], "ROI": roi, **r["best_p"][roi]} for r in records for roi in r["best_p"]]
    out: dict[str, list] = (
        {}
        if not models
        else {
            "Brain scores, LOSO best layer (mean ± sd over seeds)": scores,
            "Brain scores, in-sample best layer (the official reading; biased up)": in_sample,
            "Best model per ROI and its permutation p": best,
        }
    )
    out["Hand-crafted baselines (mean ± sd over seeds)"] = hand
    out["Noise ceilings (Net2Brain convention)"] = ceil
    if tuning:
        out["Learning-rate grid on the dev split (first seed)"] = tuning
    return out
