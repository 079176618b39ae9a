"""Figures from the report (Figure objects, no global pyplot state)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from paperkit import Report

from multitp.characters import DIMENSIONS

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["plots"]


def plots(report: Report) -> dict[str, Figure]:
    from matplotlib.figure import Figure

    m = report.metrics
    truth, pooled = np.asarray(m["truth"]), np.asarray(m["pooled"])
    names = m["languages"]
    fig = Figure(figsize=(12, 6))
    axes = fig.subplots(2, (len(names) + 1) // 2).ravel()
    x = np.arange(len(DIMENSIONS))
    for i, ax in enumerate(axes[: len(names)]):
        ax.bar(x - 0.2, truth[i], 0.4, label="respondent (human)")
        ax.bar(x + 0.2, pooled[:, i].mean(0), 0.4, yerr=pooled[:, i].std(0), label="tiny LM (mean ± sd)")
        ax.set_xticks(x, DIMENSIONS, rotation=45, fontsize=7)
        ax.set_ylim(-1, 1)
        ax.set_ylabel("AMCE (P spare favoured − P spare other)")
        ax.set_title(names[i])
    axes[0].legend(fontsize=7)
    fig.suptitle("Preference vectors per synthetic language")
    fig.tight_layout()
    fig2 = Figure(figsize=(6, 4))
    ax = fig2.subplots()
    mis = np.asarray(m["mis_model"])
    ax.bar(np.arange(len(names)), mis.mean(0), yerr=mis.std(0), label="tiny LM")
    ax.plot(np.arange(len(names)), np.linalg.norm(truth, axis=1), "k_", markersize=20, label="random (||h||)")
    ax.set_xticks(np.arange(len(names)), names)
    ax.set_ylabel("MIS = ||m_l − h_l||₂")
    ax.set_xlabel("language (first half: high resource)")
    ax.legend()
    fig2.tight_layout()
    return {"preference_vectors": fig, "misalignment": fig2}
