"""Figures from the report's metrics only (no pyplot global state)."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure
from paperkit import Report

from tta_attack.attacks import ATTACKS

__all__ = ["plots"]

LABELS = {
    "none": "no attack",
    "random": "random noise",
    "dia": "DIA (labels)",
    "dia_pseudo": "DIA-pseudo",
    "fca": "FCA (label-free)",
}


def _grid(report: Report, key: str) -> tuple[list[str], np.ndarray]:
    """Victims and ``(n_seeds, victims, attacks)`` benign error averaged over corruptions."""
    per = report.metrics["per_seed"]
    keys = list(per[0][key])
    victims = sorted({k.split("/")[0] for k in keys}, key=[k.split("/")[0] for k in keys].index)

    def mean(p: dict[str, dict[str, float]], vic: str, a: str) -> float:
        vals = [v for k, v in p[key].items() if k.startswith(f"{vic}/") and k.endswith(f"/{a}")]
        return float(np.mean(vals))

    arr = np.array([[[mean(p, vic, a) for a in ATTACKS] for vic in victims] for p in per])
    return victims, arr


def plots(report: Report) -> dict[str, Figure]:
    victims, arr = _grid(report, "benign")
    fig = Figure(figsize=(7.5, 4.0))
    ax = fig.add_subplot()
    width = 0.8 / len(ATTACKS)
    x = np.arange(len(victims))
    for j, a in enumerate(ATTACKS):
        mean, sd = 100 * arr[:, :, j].mean(0), 100 * arr[:, :, j].std(0, ddof=1)
        ax.bar(x + (j - 2) * width, mean, width, yerr=sd, capsize=2, label=LABELS[a])
    ax.set_xticks(x, [v.upper() if v in ("tebn", "sar") else v.capitalize() for v in victims])
    ax.set_ylabel("benign-slot error (%)")
    ax.set_xlabel("TTA victim (TeBN: ours, not in the paper)")
    ax.set_title("Poisoning 20 % of each test batch (digits-C, mean ± sd over seeds)")
    ax.legend(fontsize=7, ncols=3)
    fig.tight_layout()
    return {"benign_error": fig}
