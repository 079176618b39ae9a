"""Figures from the report's records (Figure objects, no global pyplot state)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from paperkit import Report

from plnl.reproduce.claims import precisions

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["plots"]


def _accuracy(report: Report) -> Figure:
    from matplotlib.figure import Figure

    runs, chosen = report.metrics["runs"], report.metrics["chosen_lr"]
    names = list(chosen)
    per = [[r["test_acc"] for r in runs if r["method"] == m and r["lr"] == chosen[m]] for m in names]
    fig = Figure(figsize=(10, 4.5))
    ax = fig.subplots()
    x = np.arange(len(names))
    ax.bar(x, [np.mean(v) for v in per], color=["C3" if m.startswith("plnl") else "C0" for m in names])
    for i, v in enumerate(per):
        ax.plot(np.full(len(v), i), v, "k.", label="one seed" if i == 0 else None)
    ax.set_xticks(x, names, rotation=40, ha="right")
    ax.set_ylabel("test accuracy (fraction)")
    ax.set_title("Digits, one complementary label: test accuracy at the dev-chosen lr (bar: mean)")
    ax.legend()
    fig.tight_layout()
    return fig


def _diagnostics(report: Report) -> Figure:
    from matplotlib.figure import Figure

    runs, lr = report.metrics["runs"], report.metrics["chosen_lr"]["plnl"]
    rs = [r for r in runs if r["method"] == "plnl" and r["lr"] == lr]
    fig = Figure(figsize=(10, 4))
    axes = fig.subplots(1, 2)
    curves = [precisions({k: np.asarray(v, float) for k, v in r["history"].items()}) for r in rs]
    for key, ax, label, colour in (("flagged", axes[0], "fraction flagged by PLG", "C0"),
                                   ("plg_precision", axes[0], "PLG pseudo-label precision", "C1"),
                                   ("nle_precision", axes[1], "NLE precision", "C2")):  # fmt: skip
        for j, h in enumerate(curves):
            ax.plot(np.arange(len(h[key])), h[key], color=colour, alpha=0.7, label=label if j == 0 else None)
    for ax in axes:
        ax.set_xlabel("PLNL epoch (after pre-training)")
        ax.set_ylabel("fraction")
        ax.legend(fontsize=8)
    fig.suptitle("PLNL's label recovery over training (one line a seed)")
    fig.tight_layout()
    return fig


def plots(report: Report) -> dict[str, Figure]:
    return {"accuracy": _accuracy(report), "plnl_diagnostics": _diagnostics(report)}
