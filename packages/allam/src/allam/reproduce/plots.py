"""Figures from the report's records (Figure objects, no global pyplot state)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from paperkit import Report

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["plots"]


def _curves(report: Report) -> Figure:
    from matplotlib.figure import Figure

    recs = list(report.metrics["per_seed"].values())
    fig = Figure(figsize=(11, 4.5))
    ax_b, ax_a = fig.subplots(1, 2)
    for j, name in enumerate(recs[0]["variants"]):
        steps = [p["step"] for p in recs[0]["variants"][name]["curve"]]
        for ax, key in ((ax_b, "b_bpb"), (ax_a, "a_bpb")):
            v = np.array([[p[key] for p in r["variants"][name]["curve"]] for r in recs])
            ax.plot(steps, v.mean(0), "-o", color=f"C{j}", ms=3, label=name)
            ax.fill_between(steps, v.min(0), v.max(0), color=f"C{j}", alpha=0.15)
    base = np.mean([r["base"]["a_bpb"] for r in recs])
    ax_a.axhline(base, color="k", ls=":", label="base before CPT")
    ax_b.set_ylabel("held-out B text, bits per byte")
    ax_a.set_ylabel("held-out A text, bits per byte")
    for ax in (ax_b, ax_a):
        ax.set_xlabel("continued pre-training step")
        ax.legend(fontsize=7)
    fig.suptitle("Continued pre-training on B (mean over seeds, band: min-max)")
    fig.tight_layout()
    return fig


def _transfer(report: Report) -> Figure:
    from matplotlib.figure import Figure

    recs = list(report.metrics["per_seed"].values())
    names = ("expand_mean", "translation")
    fig = Figure(figsize=(7, 4))
    ax = fig.subplots()
    x = np.arange(2)
    for k, (key, label) in enumerate((("qa_b_aonly_rank", "rank score"), ("qa_b_aonly_em", "exact match"))):
        vals = np.array([[r["variants"][n]["final"][key] for n in names] for r in recs])
        ax.bar(x + 0.38 * k, vals.mean(0), 0.36, yerr=vals.std(0), label=label)
    ax.axhline(0.5, color="k", ls=":", lw=1, label="rank score of chance")
    ax.set_xticks(x + 0.19, ["without parallel data", "with parallel data"])
    ax.set_ylabel("B questions on A-only facts (fraction)")
    ax.legend(fontsize=8)
    ax.set_title("Cross-lingual transfer (mean ± sd over seeds)")
    fig.tight_layout()
    return fig


def _alignment(report: Report) -> Figure:
    from matplotlib.figure import Figure

    recs = list(report.metrics["per_seed"].values())
    stages = (("cpt", "after CPT"), ("sft", "SFT (2 x steps)"), ("sft_dpo", "SFT + DPO"))
    fig = Figure(figsize=(7, 4))
    ax = fig.subplots()
    x = np.arange(2)
    for k, (stage, label) in enumerate(stages):
        vals = np.array([[r["align"][stage][f"{g}_rank"] for g in "AB"] for r in recs])
        ax.bar(x + 0.27 * k, vals.mean(0), 0.25, yerr=vals.std(0), label=label)
    ax.axhline(0.5, color="k", ls=":", lw=1, label="chance")
    ax.set_xticks(x + 0.27, ["A questions", "B questions"])
    ax.set_ylabel("held-out facts: QA rank score (1 = true value first)")
    ax.set_ylim(0, 1)
    ax.legend(fontsize=8)
    ax.set_title("Alignment on question-format QA (mean ± sd over seeds)")
    fig.tight_layout()
    return fig


def plots(report: Report) -> dict[str, Figure]:
    return {"cpt_curves": _curves(report), "transfer": _transfer(report), "alignment": _alignment(report)}
