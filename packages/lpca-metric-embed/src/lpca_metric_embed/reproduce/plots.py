"""Figures from the report only: D* per graph, check time vs N, the L2 search's training curves."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from paperkit import Report

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def plots(report: Report) -> dict[str, Figure]:
    """D* per graph (L2 vs LPCA), check time vs N (dense vs KD-tree), and the L2 search's training curves."""
    from matplotlib.figure import Figure

    cases = report.metrics["cases"]
    figs: dict[str, Figure] = {}
    graphs = list(dict.fromkeys(r["graph"] for r in cases.values()))
    fig = Figure(figsize=(7, 4))
    ax = fig.add_subplot()
    for k, (model, label) in enumerate([("l2", "L2 (hinge)"), ("lpca", "LPCA (logistic)")]):
        vals = [
            np.mean(
                [
                    np.nan if r[model]["eed"] is None else r[model]["eed"]
                    for r in cases.values()
                    if r["graph"] == g
                ]
            )
            for g in graphs
        ]
        ax.bar(np.arange(len(graphs)) + (k - 0.5) * 0.38, vals, width=0.38, label=label)
    ax.set_xticks(np.arange(len(graphs)), graphs, rotation=30)
    ax.set(
        xlabel="graph",
        ylabel="exact embedding dimension D* (seed mean)",
        title="Exact dimension found by the search",
    )
    ax.legend()
    ax.grid(True, axis="y", alpha=0.3)
    figs["eed_l2_vs_lpca"] = fig

    fig = Figure(figsize=(6, 4))
    ax = fig.add_subplot()
    timing = report.tables.get("Exactness check time", [])
    for method, label in [("dense", "dense O(N²) check"), ("kdtree", "KD-tree check (cKDTree)")]:
        pts = [t for t in timing if t["check"] == method]
        if pts:
            ax.loglog([t["N"] for t in pts], [t["seconds"] for t in pts], "o-", label=label)
        else:
            ax.plot([], [], "o-", label=f"{label}: not timed in this run")
    ax.set(xlabel="nodes N", ylabel="CPU time of one check (s)", title="Exactness check, planted RGG, D = 3")
    ax.legend()
    ax.grid(True, which="both", alpha=0.3)
    figs["check_time_vs_n"] = fig

    fig = Figure(figsize=(7, 4))
    ax = fig.add_subplot()
    first = next(r for r in cases.values() if r["graph"] == graphs[-1])
    for entry in first["l2"]["trace"]:
        c = entry["curve"]
        wrong = np.maximum(np.asarray(c["n_wrong"], dtype=float), 0.5)
        ax.semilogy(
            c["epoch"],
            wrong,
            "o-",
            ms=3,
            label=f"D = {entry['dim']} ({'exact' if entry['exact'] else 'not exact'})",
        )
    ax.set(
        xlabel="epoch at this D",
        ylabel="misclassified pairs (0 drawn at 0.5)",
        title=f"L2 search on {graphs[-1]} (seed {first['seed']}), in search order",
    )
    ax.legend(fontsize=7)
    ax.grid(True, which="both", alpha=0.3)
    figs["search_curves"] = fig
    return figs
