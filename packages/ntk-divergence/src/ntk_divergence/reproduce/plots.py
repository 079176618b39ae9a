"""Figures from the report's traces (Figure objects, no global pyplot state)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from paperkit import Report

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["plots"]

PANELS = (("param_dist", "‖θ_t − θ_0‖₂"), ("kernel_change", "‖K_t − K_0‖_F / ‖K_0‖_F"),
          ("min_margin", "min_i margin_i(t)"), ("lambda_min", "λ_min(K_t)"))  # fmt: skip
STYLES = {"network-ce": "-", "network-mse": "--", "kernel-ce": ":"}


def _panel_figure(series: dict[str, dict[str, list[dict[str, Any]]]], title: str) -> Figure:
    """``series[label][method]`` = runs over seeds; one colour per label, one line style per method."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(11, 8))
    axes = fig.subplots(2, 2)
    for ax, (key, label) in zip(axes.ravel(), PANELS, strict=True):
        for j, (name, by_method) in enumerate(series.items()):
            for method, runs in by_method.items():
                if key == "kernel_change" and method == "kernel-ce":
                    continue
                t = np.asarray(runs[0]["steps"])[1:]
                v = np.mean([np.asarray(r[key])[1:] for r in runs], axis=0)
                ax.plot(t, v, STYLES[method], color=f"C{j}", label=f"{method}, {name}")
        ax.set_xscale("log")
        ax.set_xlabel("GD step t (log scale)")
        ax.set_ylabel(label)
    axes[0, 0].legend(fontsize=7)
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def plots(report: Report) -> dict[str, Figure]:
    traces = report.metrics["traces"]
    widths = next(iter(traces.values())).keys()
    sweep = {f"m={m}": {name: traces[name][m] for name in traces} for m in widths}
    cases = dict(report.metrics["case_traces"])
    return {
        "traces_vs_log_t": _panel_figure(
            sweep, "FCN on synthetic data: CE vs MSE from the same θ_0 (mean over seeds)"
        ),
        "cases_vs_log_t": _panel_figure(
            cases, "ResNet and digits: CE vs MSE from the same θ_0 (mean over seeds)"
        ),
    }
