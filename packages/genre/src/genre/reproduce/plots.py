"""Figures from the report only: recourse on moons, the cost-plausibility trade-off, the consistency toy."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from paperkit import Report

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def plots(report: Report) -> dict[str, Figure]:
    """Recourse on moons (seed 0), the cost–plausibility trade-off, and the toy's sample vs target."""
    from matplotlib.figure import Figure

    figs: dict[str, Figure] = {}
    ex = report.metrics["example"]
    X_tr, y_tr = np.asarray(ex["X_train"]), np.asarray(ex["y_train"])
    rec = ex["recourse"]
    X_neg = np.asarray(rec["X_neg"])
    if X_tr.shape[1] == 2:
        genre_main = [m for m in rec if m.startswith("GenRe") and "τ" not in m][-1:]  # the largest λ
        shown = [*genre_main, *(m for m in ("NNR", "Wachter") if m in rec)]
        fig = Figure(figsize=(5 * len(shown), 4.5), layout="constrained")
        for i, m in enumerate(shown):
            ax = fig.add_subplot(1, len(shown), i + 1)
            ax.scatter(
                X_tr[y_tr == 1, 0], X_tr[y_tr == 1, 1], s=5, c="tab:green", alpha=0.3, label="train y = 1"
            )
            ax.scatter(
                X_tr[y_tr == 0, 0], X_tr[y_tr == 0, 1], s=5, c="tab:red", alpha=0.3, label="train y = 0"
            )
            cf = np.asarray(rec[m])
            ax.scatter(X_neg[:, 0], X_neg[:, 1], s=14, c="k", marker="x", label="x⁻ (h < 0.5)")
            ax.scatter(cf[:, 0], cf[:, 1], s=14, c="tab:blue", label="recourse x⁺")
            for a, b in zip(X_neg, cf, strict=True):
                ax.plot([a[0], b[0]], [a[1], b[1]], c="tab:blue", lw=0.5, alpha=0.5)
            ax.set(xlabel="x1 (min-max scaled)", ylabel="x2 (min-max scaled)", title=m)
            ax.legend(fontsize=7, loc="lower left")
        fig.suptitle(f"Recourse on {ex['dataset']}, seed {report.metrics['seeds'][0]}")
        figs["recourse_moons"] = fig

    ds = report.metrics["datasets"]
    fig = Figure(figsize=(5.5 * len(ds), 4.5), layout="constrained")
    for i, (d, s) in enumerate(ds.items()):
        ax = fig.add_subplot(1, len(ds), i + 1)
        for m, v in s["means"].items():
            marker = "o" if m.startswith("GenRe") else "s"
            ax.scatter(v["cost"], v["lof_inlier"], s=40 + 160 * v["gold_validity"], marker=marker, label=m)
            ax.annotate(
                f"{v['validity']:.2f}",
                (v["cost"], v["lof_inlier"]),
                fontsize=7,
                xytext=(4, 4),
                textcoords="offset points",
            )
        ax.set(
            xlabel="mean L1 cost", ylabel="LOF-inlier fraction", title=f"{d}: trade-off (label: h-validity)"
        )
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle("Cost vs plausibility, marker area ∝ gold validity (mean over seeds)")
    figs["tradeoff"] = fig

    toy = report.metrics["toy"]
    fig = Figure(figsize=(3 * len(toy["queries"]), 3.6), layout="constrained")
    qs = toy["queries"]
    for i, q in enumerate(qs):
        ax = fig.add_subplot(1, len(qs), i + 1)
        B = len(q["target"])
        edges = np.arange(B) / B
        ax.bar(edges, np.asarray(q["empirical"]), width=1 / B, align="edge", alpha=0.5, label="R_θ samples")
        ax.step(edges, np.asarray(q["target"]), where="post", c="k", lw=1, label="pair target")
        ax.set(xlabel="x⁺ (bin left edge)")
        ax.set_title(f"x⁻ = {q['x_neg']:.2f}, KS {toy['ks'][i]:.3f}", fontsize=9)
        if i == 0:
            ax.set_ylabel("probability per bin")
            ax.legend(fontsize=7)
    fig.suptitle("Consistency on the 1-D toy: R_θ samples (τ_inv = 1) vs the synthesised pair distribution")
    figs["consistency_toy"] = fig
    return figs
