"""Figures from the run's records (their JSON form in ``report.metrics`` and the selected-configuration
table): matplotlib ``Figure`` objects, no global pyplot state."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from matplotlib.figure import Figure

if TYPE_CHECKING:
    from paperkit import Report


def plots(report: Report) -> dict[str, Figure]:
    """% memorised vs accuracy (one point per method × setting, base marked) and wall-clock per method."""
    rows = report.metrics["rows"]
    base = report.metrics["base"]
    names = list(dict.fromkeys(r["method"] for r in rows))
    fig = Figure(figsize=(8, 5))
    ax = fig.add_subplot()
    markers = {"regularizer": "s", "fine-tuning": "^", "unlearning (neuron)": "o", "unlearning (weight)": "D"}
    for i, n in enumerate(names):
        rs = [r for r in rows if r["method"] == n]
        ax.scatter(
            [r["acc"] for r in rs],
            [r["mem"] for r in rs],
            color=f"C{i % 10}",
            marker=markers.get(rs[0]["family"], "o"),
            label=n,
            s=30 if n != "balanced_subnet" else 70,
            edgecolor="k" if n == "balanced_subnet" else None,
        )
    ax.scatter([base["acc"]], [base["mem"]], marker="*", s=200, color="k", label="no mitigation")
    ax.axvline(base["acc"] - 5.0, color="gray", ls="--", lw=1, label="accuracy budget (−5 pts)")
    ax.set_xlabel("clean next-token accuracy on k=7 test data (%)")
    ax.set_ylabel("% of eligible noised sequences memorised")
    ax.set_title("memorisation vs accuracy (one point per method × hyper-parameter)", fontsize=9)
    ax.legend(fontsize=6, ncol=2)
    ax.grid(True, alpha=0.3)
    figs = {"mem_vs_acc": fig}
    sel = {
        r["method"]: r
        for r in report.tables["Selected configuration per method"]
        if r["method"] != "none (base model)" and math.isfinite(r["seconds"])
    }
    if sel:
        fig2 = Figure(figsize=(8, 4))
        ax2 = fig2.add_subplot()
        ks = list(sel)
        ax2.bar(
            range(len(ks)),
            [sel[k]["seconds"] for k in ks],
            color=["C3" if k == "balanced_subnet" else "C0" for k in ks],
            label="selected configuration",
        )
        ax2.set_xticks(range(len(ks)), ks, rotation=40, ha="right", fontsize=7)
        ax2.set_ylabel("CPU seconds (1 thread)")
        ax2.set_xlabel("method")
        ax2.set_yscale("log")
        ax2.set_title("cost of each mitigation at its selected setting", fontsize=9)
        ax2.legend(fontsize=7)
        fig2.tight_layout()
        figs["wallclock"] = fig2
    return figs
