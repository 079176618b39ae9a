"""Figures from the report's records (Figure objects, no global pyplot state)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from paperkit import Report

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["plots"]

PANELS = (
    ("random_labels", "train_accuracy", "end-of-task train accuracy (random labels)"),
    ("permuted", "online_accuracy", "online accuracy (permuted digits)"),
    ("label_noise", "test_accuracy", "clean test accuracy (diminishing label noise)"),
)


def plots(report: Report) -> dict[str, Figure]:
    from matplotlib.figure import Figure

    rec = report.metrics["records"]
    panels = [p for p in PANELS if p[0] in rec]
    fig = Figure(figsize=(5 * len(panels), 4))
    axes = np.atleast_1d(fig.subplots(1, len(panels)))
    for ax, (scen, key, label) in zip(axes, panels, strict=True):
        for m, fields in rec[scen].items():
            v = np.asarray(fields[key], dtype=float)  # (n_seeds, n_tasks)
            t = np.arange(1, v.shape[1] + 1)
            ax.plot(t, v.mean(0), marker=".", label=m)
            if v.shape[0] > 1:
                ax.fill_between(t, v.min(0), v.max(0), alpha=0.15)
        ax.set_xlabel("task")
        ax.set_ylabel(label)
        ax.set_ylim(0, 1.02)
        ax.legend(fontsize=7)
    fig.suptitle("ReLU vs deep Fourier features (mean over seeds; band: min-max)")
    fig.tight_layout()
    return {"plasticity": fig}
