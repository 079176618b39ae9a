"""Figures from records only: matplotlib ``Figure`` objects, no global pyplot state."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from disk_dp.reproduce.config import NON_PRIVATE, QUAD_METHODS

if TYPE_CHECKING:
    from matplotlib.figure import Figure
    from paperkit import Report

    from disk_dp.reproduce.config import Case
    from disk_dp.reproduce.run import CaseRecord, QuadRecord


def accuracy_figure(classification: Mapping[Case, CaseRecord]) -> Figure:
    """Seed-mean test accuracy vs epoch on digits at ε = 1 (and the non-private reference)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6, 4.2))
    ax = fig.add_subplot()
    for case, r in classification.items():
        if case.dataset == "digits" and (case.eps == 1.0 or case.method == NON_PRIVATE):
            curve = np.asarray(r.acc_curve_mean, dtype=float)
            ax.plot(
                np.arange(len(curve)), 100 * curve, marker="o", ms=3, label=f"{case.method} (lr {r.lr:g})"
            )
    ax.set(
        xlabel="epoch", ylabel="test accuracy (%)", title="digits MLP, epsilon = 1 (delta = 1e-5): seed mean"
    )
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def quadratic_figure(quadratic: Mapping[str, QuadRecord]) -> Figure:
    """Seed-mean excess loss vs step of every QUAD_METHOD on the noisy quadratic (spec setting)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6, 4.2))
    ax = fig.add_subplot()
    for m in QUAD_METHODS:
        c = np.asarray(quadratic[m].curve_mean, dtype=float)
        ax.semilogy(np.arange(1, len(c) + 1), c, lw=1.2, label=m)
    ax.set(
        xlabel="step t", ylabel="excess loss F(w_t) - min F", title="noisy quadratic (cond 100), seed mean"
    )
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def plots(report: Report) -> dict[str, Figure]:
    """The figures of a Report made by ``disk_dp.reproduce.run``: accuracy vs epoch, excess loss vs step."""
    metrics = report.metrics
    quadratic = {m: metrics["quadratic"][m] for m in QUAD_METHODS}
    return {
        "digits_accuracy": accuracy_figure(metrics["classification"]),
        "quadratic_excess": quadratic_figure(quadratic),
    }
