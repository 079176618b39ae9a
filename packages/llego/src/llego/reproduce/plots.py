"""Figures from the report's records (Figure objects, no global pyplot state)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from paperkit import Report

from llego.reproduce.claims import nanmean

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["plots"]


def _search(records: list[dict], names: list[str]) -> Figure:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(5 * len(names), 4))
    axes = np.atleast_1d(fig.subplots(1, len(names)))
    for ax, n in zip(axes, names, strict=True):
        for r in (r for r in records if r["dataset"] == n):
            for key, style, label in (("llego", "-", "LLEGO"), ("gp", "--", "GP")):
                h = r[key]["history"]
                ax.step(
                    h["evals"],
                    h["best_train"],
                    style,
                    where="post",
                    color="C0" if key == "llego" else "C1",
                    label=f"{label} seed {r['seed']}",
                    alpha=0.8,
                )
        ax.set_xlabel("fitness evaluations")
        ax.set_ylabel(
            "best train fitness so far ("
            + (
                "MSE, lower is better"
                if any(r["c45"] is None for r in records if r["dataset"] == n)
                else "balanced accuracy"
            )
            + ")"
        )
        ax.set_title(n)
        ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def _mechanisms(records: list[dict], names: list[str]) -> Figure:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10, 4))
    a1, a2 = fig.subplots(1, 2)
    keys = ("div_likely", "div_tau0.1", "div_tau", "div_uniform")
    labels = ("most likely", "tau 0.1", "tau 10", "uniform")
    for i, n in enumerate(names):
        rs = [r for r in records if r["dataset"] == n]
        g = [nanmean(r["llego"]["probes"]["xo_fitness"]) for r in rs]
        b = [nanmean(r["llego"]["probes"]["xo_blind_fitness"]) for r in rs]
        a1.scatter(b, g, label=n, color=f"C{i}")
        d = [[nanmean(r["llego"]["probes"][k]) for r in rs] for k in keys]
        a2.bar(
            np.arange(len(keys)) + 0.4 * i,
            [np.mean(v) for v in d],
            width=0.4,
            yerr=[np.std(v) for v in d],
            label=n,
        )
    lo, hi = a1.get_xlim()
    a1.plot([lo, hi], [lo, hi], "k:", label="y = x")
    a1.set_xlabel("no-fitness ablation: mean train fitness of offspring")
    a1.set_ylabel("fitness-guided: mean train fitness of offspring")
    a1.legend(fontsize=7)
    a2.set_xticks(np.arange(len(keys)) + 0.2, labels)
    a2.set_xlabel("mutation offspring selection rule (same candidates)")
    a2.set_ylabel("mean pairwise Hamming distance of signatures")
    a2.legend(fontsize=7)
    fig.tight_layout()
    return fig


def plots(report: Report) -> dict[str, Figure]:
    records = list(report.metrics["records"])
    names = list(dict.fromkeys(r["dataset"] for r in records))
    return {"search_efficiency": _search(records, names), "mechanisms": _mechanisms(records, names)}
