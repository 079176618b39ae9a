"""Figures from the run's records (their JSON form in ``report.metrics``): matplotlib ``Figure`` objects,
no global pyplot state."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from lrnn_state_tracking.tasks import get_task

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from paperkit import Report


def _draw_block(ax: Axes, block: str, task: str, runs: Mapping[str, Any]) -> None:
    """Accuracy by length bin (mean over seeds) of every model of ``block``, with chance."""
    for key, r in runs.items():
        if not key.startswith(block + "/"):
            continue
        per_seed = np.asarray(r["bin_acc_per_seed"], dtype=float)
        seen = np.isfinite(per_seed).any(0)  # length bins that held sequences
        acc = np.full(per_seed.shape[1], np.nan)
        acc[seen] = np.nanmean(per_seed[:, seen], 0)
        ax.plot(r["bin_centres"], acc, marker="o", label=key.split("/")[1])
    ax.axhline(1.0 / get_task(task).n_classes, color="k", ls=":", lw=1, label="chance")
    ax.set(
        xlabel="sequence length (tokens)",
        ylabel="accuracy at the answer",
        title=f"{block}: length generalisation",
    )
    ax.set_ylim(0, 1.05)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)


def accuracy_figure(runs: Mapping[str, Any], blocks: Mapping[str, str]) -> Figure:
    """One panel per block (in run order, parity first): accuracy against sequence length."""
    from matplotlib.figure import Figure

    keys = list(dict.fromkeys(k.split("/")[0] for k in runs))
    fig = Figure(figsize=(5.5 * len(keys), 4))
    for i, block in enumerate(keys):
        _draw_block(fig.add_subplot(1, len(keys), i + 1), block, blocks.get(block, block), runs)
    return fig


def loss_figure(runs: Mapping[str, Any]) -> Figure:
    """The first seed's training loss of every model of the parity block."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6, 4))
    ax = fig.add_subplot()
    for key, r in runs.items():
        if key.startswith("parity/"):
            loss = np.asarray(r["loss_per_seed"][0], dtype=float)
            x = np.linspace(1, len(loss), len(loss))
            ax.plot(x / len(loss), loss, label=key.split("/")[1])
    ax.set(
        xlabel="fraction of training", ylabel="cross-entropy (nats), seed 0", title="parity: training loss"
    )
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    return fig


def plots(report: Report) -> dict[str, Figure]:
    """Accuracy by length per block; the parity block's training loss."""
    runs = report.metrics["runs"]
    blocks: dict[str, str] = report.metrics.get("blocks", {})
    return {"accuracy_by_length": accuracy_figure(runs, blocks), "parity_training_loss": loss_figure(runs)}
