"""Figures from the report's records (Figure objects, no global pyplot state)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from paperkit import Report

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["plots"]

GROUPS = (("id", "both aligned"), ("s1_conflict", "S1 conflict"), ("s2_conflict", "S2 conflict"),
          ("both_conflict", "both conflict"), ("worst_group", "worst group"))  # fmt: skip


def plots(report: Report) -> dict[str, Figure]:
    from matplotlib.figure import Figure

    recs = report.metrics["records"]
    methods = list(dict.fromkeys(r["method"] for r in recs))
    fig = Figure(figsize=(12, 4.5))
    ax, ax2 = fig.subplots(1, 2, gridspec_kw={"width_ratios": [2, 1]})
    w = 0.8 / len(methods)
    for j, m in enumerate(methods):
        vals = np.array([[r["test"][k] for k, _ in GROUPS] for r in recs if r["method"] == m])
        ax.bar(np.arange(len(GROUPS)) + j * w, vals.mean(0), w, yerr=vals.std(0), label=m, capsize=2)
    ax.set_xticks(np.arange(len(GROUPS)) + 0.4 - w / 2, [g for _, g in GROUPS])
    ax.set_ylabel("test accuracy (mean ± sd over seeds)")
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize=8)
    ax.set_title("Digits-UrbanCars: accuracy by cue alignment")
    for j, m in enumerate(("sebra", "erm-rank")):
        for r in (r for r in recs if r["method"] == m):
            rem = [len_ for len_ in r["remaining"]]
            ax2.plot(np.arange(1, len(rem) + 1), rem, color=f"C{j + 3}", alpha=0.7,
                     label=m if r["seed"] == recs[0]["seed"] else None)  # fmt: skip
    ax2.set_yscale("symlog")
    ax2.set_xlabel("ranking epoch t")
    ax2.set_ylabel("training samples not yet ranked")
    ax2.set_title("Stage 1: samples remaining")
    ax2.legend(fontsize=8)
    fig.tight_layout()
    return {"accuracy_by_group": fig}
