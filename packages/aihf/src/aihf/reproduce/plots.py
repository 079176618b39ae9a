"""Figures, drawn from the records as stored in ``Report.metrics`` (plain JSON values); no pyplot state."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from aihf.experiment import TABULAR_METHODS
from aihf.reproduce.run import REACHER_POLICIES, REWARDS

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["figures"]


def _tabular(cases: Mapping[str, Any]) -> Figure:
    from matplotlib.figure import Figure

    keys = [k for k in cases if "lam=" not in k]
    fig = Figure(figsize=(9, 4.5))
    ax = fig.add_subplot()
    width = 0.8 / len(TABULAR_METHODS)
    x = np.arange(len(keys))
    for i, m in enumerate(TABULAR_METHODS):
        ys = [cases[k]["scores"][m] for k in keys]
        ax.bar(
            x + i * width, [np.mean(y) for y in ys], width, yerr=[np.std(y) for y in ys], label=m, capsize=2
        )
    ax.set_xticks(x + 0.4 - width / 2, keys, fontsize=8)
    ax.axhline(1.0, color="k", lw=0.6, ls="--")
    ax.set(
        ylabel="normalised true score (1 = expert, 0 = random)",
        title="FeatureGrid-v0: A = clean / B = noisy demos; scarce = 10 / rich = 200 pairs",
    )
    ax.legend(fontsize=7, ncols=3)
    ax.grid(True, axis="y", alpha=0.3)
    return fig


def _sweep(cases: Mapping[str, Any], lam: float) -> Figure | None:
    from matplotlib.figure import Figure

    sweep = sorted({float(k.split("lam=")[1]) for k in cases if "lam=" in k})
    if not sweep:
        return None
    fig = Figure(figsize=(6, 4))
    ax = fig.add_subplot()
    for regime in ("A/scarce", "A/rich"):
        lams = sorted({*sweep, lam})
        ys = [np.mean(cases.get(f"{regime}/lam={v:g}", cases[regime])["scores"]["AIHF"]) for v in lams]
        ax.plot(lams, ys, "o-", label=f"AIHF, {regime}")
        ax.axhline(np.mean(cases[regime]["scores"]["RLHF"]), ls=":", lw=0.8, label=f"RLHF, {regime}")
    ax.set(
        xscale="log",
        xlabel="λ (preference weight)",
        ylabel="normalised true score",
        title="λ sweep, regime A (β = 0.1, H = 30)",
    )
    ax.legend(fontsize=7)
    ax.grid(True, alpha=0.3)
    return fig


def _reacher(reacher: list[Mapping[str, Any]], pairs: tuple[int, int]) -> Figure:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(11, 4))
    ax, ax2 = fig.subplots(1, 2)
    for i, k in enumerate(REACHER_POLICIES):
        ys = [r["scores"][k] for r in reacher]
        ax.bar(i, np.mean(ys), color=f"C{i}")
        ax.plot([i] * len(ys), ys, "k.", ms=5)
    ax.set_xticks(range(len(REACHER_POLICIES)), REACHER_POLICIES, fontsize=8, rotation=20)
    ax.axhline(0.0, color="k", lw=0.8, label="zero torque")
    ax.axhline(1.0, color="k", lw=0.6, ls="--", label="PD expert")
    ax.set(
        ylabel="true return, normalised (0 = zero torque, 1 = expert)",
        title="Reacher-v5 policies (dots: seeds)",
    )
    ax.legend(fontsize=7)
    width = 0.8 / len(REWARDS)
    for j, w in enumerate(REWARDS):
        ys = [[float(np.mean(r["ranks"][f"{w}@{n}"])) for r in reacher] for n in pairs]
        ax2.bar(
            np.arange(len(pairs)) + j * width, [np.mean(y) for y in ys], width, label=w, color=f"C{j + 5}"
        )
        for i, y in enumerate(ys):
            ax2.plot([i + j * width] * len(y), y, "k.", ms=4)
    ax2.set_xticks(np.arange(len(pairs)) + 0.4 - width / 2, [f"|P| = {n}" for n in pairs])
    ax2.set(
        ylim=(0, 1.05),
        ylabel="fraction of held-out targets",
        title="learned reward ranks expert > zero torque",
    )
    ax2.legend(fontsize=7)
    for a in (ax, ax2):
        a.grid(True, axis="y", alpha=0.3)
    return fig


def figures(metrics: Mapping[str, Any]) -> dict[str, Figure]:
    """tabular_scores, lambda_sweep (full run), reacher_scores (full run)."""
    cases = metrics["records"]["tabular"]
    figs = {"tabular_scores": _tabular(cases)}
    sweep = _sweep(cases, float(metrics["config"]["lam"]))
    if sweep is not None:
        figs["lambda_sweep"] = sweep
    if metrics["records"]["reacher"]:
        figs["reacher_scores"] = _reacher(
            metrics["records"]["reacher"], tuple(metrics["config"]["reacher_pairs"])
        )
    return figs
