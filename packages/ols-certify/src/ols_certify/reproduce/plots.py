"""Figures from records only: matplotlib ``Figure`` objects, no global pyplot state."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from matplotlib.figure import Figure
    from paperkit import Report

    from ols_certify.reproduce.config import Case
    from ols_certify.reproduce.run import CaseRecord, TinyRecord


def bounds_figure(case: Case, c: CaseRecord) -> Figure:
    """The official synthetic figure for one case: ACRE's U(k), FH23's bound and the finders' effects vs k."""
    from ols_certify.audit import plot_curves

    return plot_curves(
        np.asarray(c.curves.U, dtype=float),
        float(c.tau),
        int(c.k_lb),
        c.threshold.split(":")[0],
        amip=c.curves.amip,
        kzc=c.curves.kzc,
        fh=c.curves.fh,
        title=str(case),
    )


def soundness_figure(tiny: TinyRecord) -> Figure:
    """U(k) against the brute-force maximum on the tiny instances (finite positive pairs, log-log)."""
    from matplotlib.figure import Figure

    pts = np.asarray(tiny.points, dtype=float).reshape(-1, 2)
    fig = Figure(figsize=(5.5, 5))
    ax = fig.add_subplot()
    ok = (pts[:, 0] > 0) & (pts[:, 1] > 0)
    ax.loglog(
        pts[ok, 0], pts[ok, 1], ".", ms=3, alpha=0.5, label="(brute force, ACRE U(k)) per instance and k"
    )
    if ok.any():
        lo, hi = pts[ok].min(), pts[ok].max()
        ax.loglog([lo, hi], [lo, hi], "k-", lw=1, label="U(k) = exact maximum (sound above)")
    ax.set_xlabel("exact max move of β_e over |T| ≤ k (brute force)")
    ax.set_ylabel("ACRE bound U(k)")
    ax.set_title("soundness on the tiny instances (finite bounds)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    return fig


def figures(cases: Mapping[Case, CaseRecord], tiny: TinyRecord) -> dict[str, Figure]:
    """Bounds vs k for the first Gaussian d = 10 run and diabetes ``bmi`` (when run), and the soundness
    scatter."""
    figs: dict[str, Figure] = {}
    picks = (
        ("bounds_gaussian_d10", lambda c: c.kind == "gaussian" and c.d == 10),
        ("bounds_diabetes_bmi", lambda c: c.kind == "diabetes" and c.coef == "bmi"),
    )
    for fname, wanted in picks:
        case = next((c for c in cases if wanted(c)), None)
        if case is not None:
            figs[fname] = bounds_figure(case, cases[case])
    figs["soundness_tiny"] = soundness_figure(tiny)
    return figs


def plots(report: Report) -> dict[str, Figure]:
    """The figures of a Report made by ``ols_certify.reproduce.run``."""
    return figures(report.metrics["cases"], report.metrics["tiny"])
