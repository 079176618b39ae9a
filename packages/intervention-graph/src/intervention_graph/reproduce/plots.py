"""Figures from a Report's metrics only (no pyplot state)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from matplotlib.figure import Figure
from paperkit import Report

__all__ = ["plots"]


def plots(report: Report) -> Mapping[str, Figure]:
    """``timings``: median CPU ms per workload; ``heatmap``: patching recovery by layer and position."""
    m = report.metrics
    out: dict[str, Figure] = {}
    if m["times"]:
        fig = Figure(figsize=(5, 3.2), layout="constrained")
        ax = fig.subplots()
        names = ["sweep_ours_s", "sweep_hooks_s", "plain_s", "trace_s"]
        labels = ["sweep: graph", "sweep: hooks", "plain forward", "trace (1 save)"]
        ax.bar(labels, [float(np.median(m["times"][k])) * 1e3 for k in names], color=["C0", "C1", "C2", "C0"])
        ax.set_ylabel("median process CPU time (ms)")
        ax.set_title("intervention graph vs hand-written hooks")
        ax.tick_params(axis="x", labelrotation=20)
        out["timings"] = fig
    rec = np.asarray(m["heat"]["recovery"], dtype=float)
    fig2 = Figure(figsize=(6, 2.8), layout="constrained")
    ax2 = fig2.subplots()
    im = ax2.imshow(rec, aspect="auto", cmap="viridis")
    ax2.set_xlabel("patched position")
    ax2.set_ylabel("layer (block output)")
    ax2.set_title("activation patching: logit-difference recovery")
    fig2.colorbar(im, ax=ax2, label="recovery (0 = corrupt, 1 = clean)")
    out["heatmap"] = fig2
    return out
