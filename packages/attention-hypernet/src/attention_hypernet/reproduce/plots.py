"""Figures from the report's records (Figure objects, no global pyplot state)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from paperkit import Report

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["plots"]


def plots(report: Report) -> dict[str, Figure]:
    from matplotlib.figure import Figure

    logic = report.metrics["logic"]
    fig = Figure(figsize=(11, 4))
    ax_bar, ax_loss = fig.subplots(1, 2)
    splits = ("train", "test", "ood")
    width = 0.8 / max(1, len(logic))
    for j, (m, runs) in enumerate(logic.items()):
        vals = np.array([[r["metrics"][s]["r2"] for s in splits] for r in runs])
        x = np.arange(len(splits)) + (j - (len(logic) - 1) / 2) * width
        ax_bar.bar(x, vals.mean(0), width, yerr=vals.std(0) if len(vals) > 1 else None, label=m, capsize=2)
        curves = np.array([r["loss_curve"] for r in runs])
        ax_loss.plot(np.linspace(0, 1, curves.shape[1]), curves.mean(0), label=m)
    ax_bar.set_xticks(np.arange(len(splits)), ["train tasks", "held-out tasks (in-dist)", "OOD tasks"])
    ax_bar.set_ylabel("R² (mean ± sd over seeds)")
    ax_bar.axhline(0, color="k", lw=0.5)
    ax_bar.legend(fontsize=7)
    ax_bar.set_title("Fuzzy logic: R² per split")
    ax_loss.set_yscale("log")
    ax_loss.set_xlabel("fraction of training steps")
    ax_loss.set_ylabel("training MSE (mean over seeds)")
    ax_loss.legend(fontsize=7)
    ax_loss.set_title("Training loss")
    fig.tight_layout()
    return {"logic_r2": fig}
