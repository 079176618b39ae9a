"""Figures from records only: matplotlib ``Figure`` objects, no global pyplot state."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from bandit_neural.envs import UTILITIES

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from paperkit import Report

    from bandit_neural.reproduce.config import Case
    from bandit_neural.reproduce.run import CaseRecord


def _draw_duel_panel(ax: Axes, utility: str, cases: Mapping[Case, CaseRecord]) -> None:
    """Seed-mean curves (lines) and min–max bands of the duel cases of one utility at the config's ν."""
    for case, r in cases.items():
        if case.binary or case.utility != utility or case.nu is not None or case.diagonal:
            continue
        t, per_seed = np.asarray(r.curve.t), np.asarray(r.curve.per_seed, dtype=float)
        (line,) = ax.plot(t, np.asarray(r.curve.mean), lw=2, label=case.label)
        if len(per_seed) > 1:
            ax.fill_between(t, per_seed.min(0), per_seed.max(0), color=line.get_color(), alpha=0.15)
    ax.set(
        xlabel="round t", ylabel="cumulative average regret R_t (utility units)", title=f"{utility} utility"
    )
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")


def dueling_figure(cases: Mapping[Case, CaseRecord]) -> Figure:
    """Cumulative regret vs round, one panel per utility of the duel cases."""
    from matplotlib.figure import Figure  # imported here: the experiment itself does not need it

    utilities = [u for u in UTILITIES if any(not c.binary and c.utility == u for c in cases)]
    fig = Figure(figsize=(5 * len(utilities), 4.2))
    for n, u in enumerate(utilities):
        _draw_duel_panel(fig.add_subplot(1, len(utilities), n + 1), u, cases)
    fig.suptitle("Contextual dueling bandits, BTL feedback: seed mean (line) and min–max (band)")
    return fig


def binary_figure(cases: Mapping[Case, CaseRecord]) -> Figure:
    """Cumulative regret vs round of the binary-feedback cases."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6, 4.2))
    ax = fig.add_subplot()
    for case, r in cases.items():
        if case.binary:
            ax.plot(np.asarray(r.curve.t), np.asarray(r.curve.mean), lw=2, label=case.label)
    ax.set(
        xlabel="round t",
        ylabel="cumulative regret f(x*) − f(x_t) (utility units)",
        title="Binary feedback y ~ Bernoulli(μ(f(x))), Cosine utility",
    )
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def nu_figure(nus: Mapping[str, float], linear: CaseRecord | None) -> Figure:
    """Seed-mean R_T of NDB-UCB on Cosine against ν, with LinDB-UCB's as a reference line."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(5.5, 4))
    ax = fig.add_subplot()
    xs = sorted(nus, key=float)
    ax.semilogx([float(x) for x in xs], [nus[x] for x in xs], "o-", label="NDB-UCB")
    if linear is not None:
        ax.axhline(linear.R_T_mean, color="k", ls="--", lw=1, label="LinDB-UCB (ν = 3)")
    ax.set(xlabel="exploration scale ν", ylabel="seed-mean R_T (utility units)", title="ν ablation, Cosine")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def figures(cases: Mapping[Case, CaseRecord], nus: Mapping[str, float]) -> dict[str, Figure]:
    """The dueling panels, the binary-feedback panel (when run) and the ν ablation (when run)."""
    from bandit_neural.reproduce.config import COSINE_CASES

    figs = {"regret_dueling": dueling_figure(cases)}
    if any(c.binary for c in cases):
        figs["regret_binary"] = binary_figure(cases)
    if len(nus) > 1:
        figs["nu_ablation"] = nu_figure(nus, cases.get(COSINE_CASES[1]))
    return figs


def plots(report: Report) -> dict[str, Figure]:
    """The figures of a Report made by ``bandit_neural.reproduce.run``."""
    return figures(report.metrics["cases"], report.metrics.get("nu_ablation_cosine", {}))
