"""Figures from the report's metrics (Figure objects, no global pyplot state)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from paperkit import Report

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["plots"]


def _scaling(report: Report) -> Figure:
    from matplotlib.figure import Figure

    m = report.metrics
    cells = list(m["test_mse"])
    fig = Figure(figsize=(4.2 * len(cells), 3.8))
    axes = np.atleast_1d(fig.subplots(1, len(cells), sharey=True))
    Ns = np.asarray(m["Ns"], float)
    for ax, cell in zip(axes, cells, strict=True):
        for j, (name, err) in enumerate(m["test_mse"][cell].items()):
            e = np.asarray(err)
            a = m["summaries"][cell]["alpha"][name]
            ax.errorbar(Ns, e.mean(0), yerr=e.std(0), fmt="o-", color=f"C{j}", capsize=2,
                        label=f"{name} (α = {a['mean']:.2f} ± {a['se_seeds']:.2f})")  # fmt: skip
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("training set size N (log)")
        ax.set_title(cell.replace("nu_", "ν_"), fontsize=9)
        ax.legend(fontsize=7)
    axes[0].set_ylabel("test MSE (log; mean ± sd over seeds)")
    fig.tight_layout()
    return fig


def _heatmap(report: Report) -> Figure | None:
    from matplotlib.figure import Figure

    summ = report.metrics["summaries"]
    cells = [tuple(float(v.split("=")[1]) for v in k.split(",")) for k in summ]
    gs, hs = sorted({c[0] for c in cells}), sorted({c[1] for c in cells})
    if len(gs) < 2 or len(hs) < 2 or len(cells) != len(gs) * len(hs):
        return None
    panels = {"ρ = MSE_AccNet / MSE_shallow at N_max": lambda c: np.mean(c["rho"]),
              "α_AccNet": lambda c: c["alpha"]["accnet"]["mean"],
              "α_shallow": lambda c: c["alpha"]["shallow"]["mean"]}  # fmt: skip
    fig = Figure(figsize=(13, 4))
    for ax, (title, fn) in zip(fig.subplots(1, 3), panels.items(), strict=True):
        grid = np.array([[fn(summ[f"nu_g={g:g},nu_h={h:g}"]) for h in hs] for g in gs])
        im = ax.imshow(grid, origin="lower", cmap="viridis")
        for (i, j), v in np.ndenumerate(grid):
            ax.text(j, i, f"{v:.2f}", ha="center", va="center", color="w")
        ax.set_xticks(range(len(hs)), [f"{h:g}" for h in hs])
        ax.set_yticks(range(len(gs)), [f"{g:g}" for g in gs])
        ax.set_xlabel("ν_h (regularity of the outer map h)")
        ax.set_ylabel("ν_g (regularity of the inner map g)")
        ax.set_title(title, fontsize=9)
        fig.colorbar(im, ax=ax)
    fig.tight_layout()
    return fig


def plots(report: Report) -> dict[str, Figure]:
    out = {"scaling_laws": _scaling(report)}
    heat = _heatmap(report)
    if heat is not None:
        out["phase_diagram"] = heat
    return out
