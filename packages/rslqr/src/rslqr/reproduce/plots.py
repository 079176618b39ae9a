"""Figures from records only: matplotlib ``Figure`` objects, no global pyplot state."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from rslqr.methods import METHODS

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from paperkit import Report

    from rslqr.reproduce.config import Case
    from rslqr.reproduce.run import CaseRecord


def _label(record: CaseRecord) -> str:
    name = record.case.algorithm
    label = METHODS[name].label if name in METHODS else name
    n_inf, n_seeds = record.growth.seeds_with_infinite_regret, len(record.curve.per_seed)
    return label + (f" ({n_inf}/{n_seeds} seeds reach +inf)" if n_inf else "")


def _draw_case(ax: Axes, record: CaseRecord) -> list[float]:
    """Median (thick) and finite per-seed curves (thin) on log-log axes; returns the seeds' last values."""
    c = record.curve
    ok = np.isfinite(c.median) & (c.median > 0)
    (line,) = ax.loglog(c.N[ok], c.median[ok], lw=2, label=_label(record))
    tops = []
    for seed_curve in c.per_seed:
        good = np.isfinite(seed_curve) & (seed_curve > 0)
        ax.loglog(c.N[good], seed_curve[good], color=line.get_color(), lw=0.5, alpha=0.35)
        if good.any():
            tops.append(float(seed_curve[good][-1]))
    return tops


def loglog_figure(records: Sequence[CaseRecord]) -> Figure:
    """Every learner of one (system, γ) panel, with √N and N reference slopes."""
    from matplotlib.figure import Figure  # imported here: the CLI's other paths start faster without it

    fig = Figure(figsize=(7, 4.5))
    ax = fig.add_subplot()
    tops = [top for record in records for top in _draw_case(ax, record)]
    n = records[0].curve.N
    ref = n[n >= 64]
    if ref.size and tops:
        top = float(np.median(tops))
        ax.loglog(ref, top * np.sqrt(ref / ref[-1]), "k--", lw=0.8, label="∝ √N (reference)")
        ax.loglog(ref, top * ref / ref[-1], "k:", lw=0.8, label="∝ N (reference)")
    case = records[0].case
    ax.set(
        xlabel="episodes N",
        ylabel="cumulative regret (cost units)",
        title=f"System {case.system}, γ={case.gamma:g}: seed median (thick), finite seeds (thin)",
    )
    ax.legend(fontsize=7, loc="upper left")
    ax.grid(True, which="both", alpha=0.3)
    return fig


def semilog_figure(records: Sequence[CaseRecord]) -> Figure:
    """Median regret of Algorithms 1 and 2 against log N (O(log N) growth is a straight line)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 4.5))
    ax = fig.add_subplot()
    for record in records:
        c = record.curve
        ok = np.isfinite(c.median)
        ax.semilogx(c.N[ok], c.median[ok], label=METHODS[record.case.algorithm].label)
    case = records[0].case
    ax.set(
        xlabel="episodes N (log scale)",
        ylabel="median cumulative regret (cost units)",
        title=f"System {case.system}, γ={case.gamma:g}: O(log N) regret is a straight line here",
    )
    ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    return fig


def figures(cases: Mapping[Case, CaseRecord]) -> dict[str, Figure]:
    """A log-log panel per (system, γ), and the semi-log panel of the first one."""
    groups: dict[tuple[str, float], list[CaseRecord]] = {}
    for case, record in cases.items():
        groups.setdefault(case.group, []).append(record)
    figs = {
        f"regret_loglog_{system}_gamma{gamma:g}": loglog_figure(records)
        for (system, gamma), records in groups.items()
    }
    first = next(iter(groups.values()))
    figs["regret_semilog"] = semilog_figure([r for r in first if r.case.algorithm in ("alg1", "alg2")])
    return figs


def plots(report: Report) -> dict[str, Figure]:
    """The figures of a Report made by ``rslqr.reproduce.run``."""
    from rslqr.reproduce.run import records_of

    return figures(records_of(report))
