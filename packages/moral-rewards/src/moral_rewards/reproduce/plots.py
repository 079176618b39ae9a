"""Figures from the report's records (Figure objects, no global pyplot state)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from paperkit import Report

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["plots"]


def _curves(per_seed: list[dict[str, Any]]) -> Figure:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(11, 4))
    axes = fig.subplots(1, 2)
    for j, name in enumerate(per_seed[0]["curves"]):
        ep = per_seed[0]["curves"][name]["episode"]
        for ax, key in zip(axes, ("p_defect_after_c", "illegal"), strict=True):
            v = np.mean([r["curves"][name][key] for r in per_seed], axis=0)
            ax.plot(ep, v, "o-", color=f"C{j}", label=name)
    axes[0].set_ylabel("P(D | opponent's previous move C)")
    axes[1].set_ylabel("illegal-answer rate")
    for ax in axes:
        ax.set_xlabel("PPO episode (5 rounds each), vs TFT")
        ax.set_ylim(-0.02, 1.02)
    axes[0].legend(title="reward", fontsize=8)
    fig.suptitle("PPO fine-tuning of the tiny LM (mean over seeds; game->de switches halfway)")
    fig.tight_layout()
    return fig


def _regret(per_seed: list[dict[str, Any]]) -> Figure:
    from matplotlib.figure import Figure

    models = list(per_seed[0]["eval"])
    games = list(per_seed[0]["eval"]["base"])
    fig = Figure(figsize=(11, 4))
    axes = fig.subplots(1, 2)
    width = 0.8 / len(models)
    for ax, key, label in zip(
        axes, ("de_regret", "ut_regret"), ("Deontological regret", "normalised Ut regret"), strict=True
    ):
        for i, m in enumerate(models):
            v = np.array([[r["eval"][m][g][key] for g in games] for r in per_seed])
            ax.bar(np.arange(len(games)) + i * width, v.mean(0), width, yerr=v.std(0), label=m)
        ax.set_xticks(np.arange(len(games)) + 0.4 - width / 2, games)
        ax.set_xlabel("game (vs Random, held-out action tokens)")
        ax.set_ylabel(label)
    axes[0].legend(title="model", fontsize=8)
    fig.tight_layout()
    return fig


def plots(report: Report) -> dict[str, Figure]:
    per_seed = report.metrics["per_seed"]
    return {"training_curves": _curves(per_seed), "moral_regret": _regret(per_seed)}
