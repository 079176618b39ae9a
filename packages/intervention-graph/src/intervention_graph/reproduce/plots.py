"""Figures from a Report's metrics only (no pyplot state)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from matplotlib.figure import Figure
from paperkit import Report

__all__ = ["plots"]


def _remote_figure(curves: Mapping[str, list[dict[str, float]]]) -> Figure:
    """(c) round-trip latency vs payload, by part; (d) jobs/s vs concurrent clients."""
    fig = Figure(figsize=(8, 3.2), layout="constrained")
    ax, bx = fig.subplots(1, 2)
    p = curves["payload"]
    mb = [r["payload_mb"] for r in p]
    for key, label in (("total_s", "total"), ("execute_s", "execution (server)"),
                       ("serialise_s", "serialise + parse"), ("other_s", "HTTP, auth, copies")):  # fmt: skip
        ax.plot(mb, [max(r[key], 1e-4) for r in p], marker="o", label=label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("saved payload (MiB)")
    ax.set_ylabel("wall seconds")
    ax.set_title("(c) remote round trip vs payload")
    ax.legend(fontsize=7)
    c = curves["clients"]
    bx.plot([r["clients"] for r in c], [r["jobs_per_s"] for r in c], marker="o")
    bx.set_xlabel("concurrent clients (one shared model)")
    bx.set_ylabel("jobs / s")
    bx.set_ylim(bottom=0)
    bx.set_title("(d) throughput vs clients")
    return fig


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
    if m["curves"]["payload"] and m["curves"]["clients"]:
        out["remote"] = _remote_figure(m["curves"])
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
