"""Figures from the report's records (Figure objects, no global pyplot state)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from paperkit import Report

from video_brain_rsa.data import ROIS

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["plots"]


def _ceilings(ax: Any, x0: float, x1: float, lnc: float, unc: float, *, first: bool) -> None:
    """Dotted LNC and dashed UNC segments over one ROI's bars (one legend entry)."""
    ax.hlines(
        lnc, x0, x1, colors="k", linestyles="dotted", label="LNC (dotted) / UNC (dashed)" if first else "_"
    )
    ax.hlines(unc, x0, x1, colors="k", linestyles="dashed", label="_")


def _bars(report: Report) -> Figure:
    from matplotlib.figure import Figure

    s = report.metrics["summary"]
    models = list(s["loso_mean"])
    fig = Figure(figsize=(11, 4.5))
    ax = fig.subplots()
    width = 0.8 / len(models)
    for j, m in enumerate(models):
        x = np.arange(len(ROIS)) + j * width
        ax.bar(x, [s["loso_mean"][m][r] for r in ROIS], width, yerr=[s["loso_sd"][m][r] for r in ROIS],
               label=m, color=f"C{j % 10}", alpha=0.9 if "untrained" not in m else 0.4)  # fmt: skip
    recs = report.metrics["records"]
    for i, roi in enumerate(ROIS):
        lnc = np.mean([r["ceilings"][roi][0] for r in recs])
        unc = np.mean([r["ceilings"][roi][1] for r in recs])
        _ceilings(ax, i - 0.05, i + 0.85, lnc, unc, first=i == 0)
    ax.set_xticks(np.arange(len(ROIS)) + 0.4, ROIS)
    ax.set_xlabel("synthetic ROI")
    ax.set_ylabel("brain score R (Spearman, LOSO best layer)")
    ax.legend(fontsize=7, ncol=2)
    ax.set_title("Best-layer scores per ROI with noise ceilings (mean ± sd over seeds)")
    fig.tight_layout()
    return fig


def _profiles(report: Report) -> Figure:
    from matplotlib.figure import Figure

    recs = report.metrics["records"]
    models = [m for m in recs[0]["models"] if m.endswith("/action")]
    fig = Figure(figsize=(12, 3.6))
    axes = fig.subplots(1, len(ROIS), sharey=True)
    for ax, roi in zip(axes, ROIS, strict=True):
        for j, m in enumerate(models):
            prof = np.mean([r["models"][m]["profile"][roi] for r in recs], axis=0)
            ax.plot(recs[0]["models"][m]["depth"], prof, "o-", color=f"C{j}", label=m)
        ax.set_title(roi)
        ax.set_xlabel("relative layer depth")
    axes[0].set_ylabel("R (Spearman, subject mean)")
    axes[0].legend(fontsize=7)
    fig.suptitle("Layer profiles of the action-trained models (mean over seeds)")
    fig.tight_layout()
    return fig


def _hand(report: Report) -> Figure:
    from matplotlib.figure import Figure

    recs = report.metrics["records"]
    names = list(recs[0]["hand"])
    fig = Figure(figsize=(9, 4))
    ax = fig.subplots()
    for j, n in enumerate(names):
        x = np.arange(len(ROIS)) + j * 0.2
        vals = np.array([[r["hand"][n][roi] for roi in ROIS] for r in recs])
        ax.bar(x, vals.mean(axis=0), 0.2, yerr=vals.std(axis=0), label=n, color=f"C{j}")
    for i, roi in enumerate(ROIS):
        unc = np.mean([r["ceilings"][roi][1] for r in recs])
        lnc = np.mean([r["ceilings"][roi][0] for r in recs])
        _ceilings(ax, i - 0.1, i + 0.7, lnc, unc, first=i == 0)
    ax.set_xticks(np.arange(len(ROIS)) + 0.3, ROIS)
    ax.set_xlabel("synthetic ROI")
    ax.set_ylabel("R (Spearman, subject mean)")
    ax.legend(fontsize=7)
    ax.set_title("Hand-crafted RDMs per ROI with noise ceilings (mean ± sd over seeds)")
    fig.tight_layout()
    return fig


def plots(report: Report) -> dict[str, Figure]:
    out = {"hand_crafted_per_roi": _hand(report)}
    if report.metrics["records"][0]["models"]:
        out |= {"scores_per_roi": _bars(report), "layer_profiles": _profiles(report)}
    return out
