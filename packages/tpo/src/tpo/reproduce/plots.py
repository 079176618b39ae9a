"""Figures from the report only: held-out accuracy and τ per method, dev τ along training."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from matplotlib.figure import Figure
from paperkit import Report


def plots(report: Report) -> dict[str, Figure]:
    """Held-out τ and accuracy per method (bars), and dev τ along preference training (curves)."""
    methods: Mapping[str, Any] = report.metrics["methods"]
    sft = report.metrics["sft"]
    names = list(methods)
    figs: dict[str, Figure] = {}
    fig = Figure(figsize=(10, 4))
    ax1, ax2 = fig.subplots(1, 2)
    x = np.arange(len(names))
    for ax, key, label in (
        (ax1, "tau_plain", "Kendall τ-b (implicit reward vs score)"),
        (ax2, "accuracy", "greedy accuracy"),
    ):
        vals = [[r[key] for r in methods[m]["runs"]] for m in names]
        ax.bar(
            x,
            [np.mean(v) for v in vals],
            yerr=[np.std(v) if len(v) > 1 else 0 for v in vals],
            color="C0",
            alpha=0.8,
            label="mean over seeds (± std)",
        )
        for i, v in enumerate(vals):
            ax.plot([i] * len(v), v, "k.", ms=4)
        if key == "accuracy":
            ax.axhline(sft["accuracy"], color="C3", ls="--", label="SFT reference")
        ax.set_xticks(x, names, rotation=35, ha="right", fontsize=8)
        ax.set_ylabel(label)
        ax.set_xlabel("method")
        ax.legend(fontsize=7)
        ax.grid(True, axis="y", alpha=0.3)
    ax1.set_title("held-out list ranking (higher is better)", fontsize=9)
    ax2.set_title("held-out final-answer accuracy", fontsize=9)
    figs["methods"] = fig
    steps = report.metrics.get("curve_steps") or []
    if steps:
        fig = Figure(figsize=(6, 4))
        ax = fig.add_subplot()
        for i, m in enumerate(names):
            c = np.array(report.metrics["curves"][m], dtype=float)
            if c.size == 0 or not np.isfinite(c).any():  # sft_best has no preference curve
                continue
            mu = c.mean(axis=0)
            ax.plot(steps[: len(mu)], mu, color=f"C{i}", label=m)
            if c.shape[0] > 1:
                sd = c.std(axis=0)
                ax.fill_between(steps[: len(mu)], mu - sd, mu + sd, color=f"C{i}", alpha=0.15)
        ax.set(
            xlabel="preference-optimisation steps",
            ylabel="dev Kendall τ-b (plain implicit reward)",
            title="ranking quality during training (band: ± std over seeds)",
        )
        ax.legend(fontsize=7)
        ax.grid(True, alpha=0.3)
        figs["tau_curves"] = fig
    return figs
