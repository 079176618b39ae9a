"""Figures from the report's metrics (Figure objects, no global pyplot state)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from paperkit import Report

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["plots"]

ORDER = ("reference", "equal-weight", "random-lambda", "sequential-1", "best-of-k", "map-joint", "map")


def _levels(report: Report) -> Figure:
    from matplotlib.figure import Figure

    dec = report.metrics["decode"]["per_seed"]
    names = report.metrics["value_names"]
    fig = Figure(figsize=(10, 4.5))
    ax = fig.subplots()
    width = 0.8 / len(ORDER)
    x = np.arange(len(names))
    for j, meth in enumerate(ORDER):
        z = np.mean(
            [(np.array(d["fresh_mean"][meth]) - np.array(d["c"])) / np.array(d["sd"]) for d in dec], axis=0
        )
        ax.bar(x + (j - len(ORDER) / 2) * width, z, width, label=meth)
    ax.axhline(0.0, color="k", lw=1, label="palette target")
    ax.set_xticks(x, names)
    ax.set_ylabel("(realised level − target c) / sd(r) on fresh prompts")
    ax.set_title("MAP decoding vs baselines at the 60 % palette (≥ 0 meets the target)")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    return fig


def _cloud(report: Report) -> Figure:
    from matplotlib.figure import Figure

    rc = report.metrics["random_cloud"]
    pts, ok = np.array(rc["realized"]), np.array(rc["feasible"], bool)
    fig = Figure(figsize=(6, 5))
    ax = fig.subplots()
    ax.scatter(pts[~ok, 0], pts[~ok, 1], s=8, c="0.6", label="random λ (misses c)")
    ax.scatter(pts[ok, 0], pts[ok, 1], s=8, c="C2", label="random λ (meets c)")
    ax.scatter([rc["map"][0]], [rc["map"][1]], marker="*", s=200, c="C3", label="MAP λ*")
    ax.axvline(rc["c"][0], color="k", ls="--", lw=1)
    ax.axhline(rc["c"][1], color="k", ls="--", lw=1, label="palette c")
    ax.set_xlabel("realised E r₁ (Gaussian, seed 0)")
    ax.set_ylabel("realised E r₂ (anticorrelated with r₁)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def plots(report: Report) -> dict[str, Figure]:
    figs = {"random_lambda_cloud": _cloud(report)}
    if "decode" in report.metrics:
        figs["decoding_levels"] = _levels(report)
    return figs
