"""Figures from the report's metrics only: the paper's three-panel KL-gap plot, one row per estimator."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure
from paperkit import Report

__all__ = ["plots"]

TITLES = {
    "mc": "exact-density MC (default)",
    "histogram": "official histogram",
    "histogram_shared": "shared-bin histogram",
}


def plots(report: Report) -> dict[str, Figure]:
    sw = report.metrics["sweeps"]
    params = list(sw)
    ests = list(next(iter(sw.values()))["kl_anchor"])
    fig = Figure(figsize=(4.2 * len(params), 3.0 * len(ests)), layout="constrained")
    axes = fig.subplots(len(ests), len(params), squeeze=False)
    for i, est in enumerate(ests):
        for j, p in enumerate(params):
            s = sw[p]
            gap = np.asarray(s["kl_anchor"][est]) - np.asarray(s["kl_synthetic"][est])
            x, m, sd = np.asarray(s["values"]), gap.mean(axis=1), gap.std(axis=1)
            ax = axes[i, j]
            ax.plot(x, m, "D-", color="tab:blue", label="mean over worlds")
            ax.fill_between(x, m - sd, m + sd, color="tab:blue", alpha=0.2, label="± 1 sd")
            ax.plot(x, np.median(gap, axis=1), "o--", color="tab:orange", label="median")
            ax.axhline(0.0, color="grey", lw=0.8)
            ax.set_xlabel(p)
            ax.set_ylabel("KL gap (nats)")
            ax.set_title(f"KL gap vs {p}: {TITLES.get(est, est)}", fontsize=9)
            ax.grid(True, ls="--", lw=0.5)
    axes[0, 0].legend(fontsize=7)
    return {"kl_gap": fig}
