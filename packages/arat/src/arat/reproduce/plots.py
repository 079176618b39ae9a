"""Figures from the report's metrics (Figure objects, no global pyplot state)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from paperkit import Report

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["plots"]


def plots(report: Report) -> dict[str, Figure]:
    """``tradeoff``: clean vs worst-case robust test accuracy per method (seeds as points, means as stars);
    left every method, right a zoom on the methods that learned a robust model (mean worst case >= 0.15)."""
    from matplotlib.figure import Figure

    seeds = report.metrics["seeds"]
    fig = Figure(figsize=(11, 4.8))
    axes = fig.subplots(1, 2)
    for j, name in enumerate(seeds[0]["methods"]):
        clean = np.array([s["methods"][name]["clean"] for s in seeds])
        worst = np.array([s["methods"][name]["worst"] for s in seeds])
        for k, ax in enumerate(axes):
            if k == 1 and worst.mean() < 0.15:
                continue
            ax.scatter(worst, clean, color=f"C{j}", alpha=0.35, s=18)
            ax.scatter(
                worst.mean(), clean.mean(), color=f"C{j}", marker="*", s=160, edgecolor="k", label=name
            )
    for ax, title in zip(axes, ("all methods", "zoom: methods with a robust model"), strict=True):
        ax.set_xlabel("worst-case robust test accuracy (PGD-CE, PGD-CW, APGD-CE)")
        ax.set_ylabel("clean test accuracy")
        ax.set_title(title)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8)
        else:  # no method reached a robust model (e.g. the smoke scale)
            ax.text(
                0.5, 0.5, "no method with worst-case accuracy >= 0.15", ha="center", transform=ax.transAxes
            )
    fig.suptitle("Robustness-accuracy trade-off on digits (points: seeds, stars: means)")
    fig.tight_layout()
    return {"tradeoff": fig}
