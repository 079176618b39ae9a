"""Figures from the report's traces (Figure objects, no global pyplot state)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from paperkit import Report

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["plots"]

PANELS = (("param_dist", "‖θ_t − θ_0‖₂"), ("kernel_change", "‖K_t − K_0‖_F / ‖K_0‖_F"),
          ("min_margin", "min_i y_i f_t(x_i)"), ("lambda_min", "λ_min(K_t)"))  # fmt: skip


def plots(report: Report) -> dict[str, Figure]:
    from matplotlib.figure import Figure

    traces = report.metrics["traces"]
    fig = Figure(figsize=(11, 8))
    axes = fig.subplots(2, 2)
    styles = {"network-ce": "-", "network-mse": "--", "kernel-ce": ":"}
    for ax, (key, label) in zip(axes.ravel(), PANELS, strict=True):
        for name, by_width in traces.items():
            if key == "kernel_change" and name == "kernel-ce":
                continue
            for j, (m, runs) in enumerate(by_width.items()):
                t = np.asarray(runs[0]["steps"])[1:]
                v = np.mean([np.asarray(r[key])[1:] for r in runs], axis=0)
                ax.plot(t, v, styles[name], color=f"C{j}", label=f"{name}, m={m}")
        ax.set_xscale("log")
        ax.set_xlabel("GD step t (log scale)")
        ax.set_ylabel(label)
    axes[0, 0].legend(fontsize=7)
    fig.suptitle("CE vs MSE from the same θ_0 (mean over seeds)")
    fig.tight_layout()
    return {"traces_vs_log_t": fig}
