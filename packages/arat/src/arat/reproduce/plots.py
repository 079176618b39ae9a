"""Figures from the report's metrics (Figure objects, no global pyplot state)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from paperkit import Report

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["plots"]


def plots(report: Report) -> dict[str, Figure]:
    """``tradeoff``: clean vs worst-case robust test accuracy per method (seeds as points, means as stars)."""
    from matplotlib.figure import Figure

    seeds = report.metrics["seeds"]
    fig = Figure(figsize=(6.5, 5))
    ax = fig.subplots()
    for j, name in enumerate(seeds[0]["methods"]):
        clean = np.array([s["methods"][name]["clean"] for s in seeds])
        worst = np.array([s["methods"][name]["worst"] for s in seeds])
        ax.scatter(worst, clean, color=f"C{j}", alpha=0.35, s=18)
        ax.scatter(worst.mean(), clean.mean(), color=f"C{j}", marker="*", s=160, edgecolor="k", label=name)
    ax.set_xlabel("worst-case robust test accuracy (PGD-CE, PGD-CW, APGD-CE)")
    ax.set_ylabel("clean test accuracy")
    ax.set_title("Robustness-accuracy trade-off on digits (points: seeds, stars: means)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return {"tradeoff": fig}
