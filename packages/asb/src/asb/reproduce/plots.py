"""The figure: ASR per attack (and defended variants) of the toy backbone, seeds as points."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from matplotlib.figure import Figure
from paperkit import Report

__all__ = ["plots"]


def plots(report: Report) -> Mapping[str, Figure]:
    cells: list[Any] = [c for c in report.metrics["cells"] if "@" not in c.attack]
    labels = list(dict.fromkeys(f"{c.attack} / {c.defense}" for c in cells))
    fig = Figure(figsize=(9, 4.5), constrained_layout=True)
    ax = fig.subplots()
    for i, label in enumerate(labels):
        vals = [c.asr for c in cells if f"{c.attack} / {c.defense}" == label]
        ax.bar(
            i,
            sum(vals) / len(vals),
            color="tab:red",
            alpha=0.6,
            label="ASR (mean over seeds)" if i == 0 else None,
        )
        ax.scatter([i] * len(vals), vals, color="black", s=10, label="per seed" if i == 0 else None, zorder=3)
    ax.set_xticks(range(len(labels)), labels, rotation=60, ha="right", fontsize=7)
    ax.set_ylabel("attack success rate (fraction of cases)")
    ax.set_ylim(0, 1.05)
    ax.set_title("ASB on the toy backbone: ASR per attack / defense")
    ax.legend(loc="upper right", fontsize=8)
    return {"asr": fig}
