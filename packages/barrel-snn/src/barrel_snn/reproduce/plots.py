"""Figures from the run's records (their JSON form in ``report.metrics``): matplotlib ``Figure`` objects,
no global pyplot state. matplotlib loads with the experiment (every run writes its plots), so the CI's
bytecode warm-up of ``barrel_snn.reproduce`` covers it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
from matplotlib.figure import Figure

from barrel_snn.anatomy import POPULATIONS

if TYPE_CHECKING:
    from paperkit import Report


def accuracy_figure(m: Mapping[str, Any]) -> Figure:
    """Training accuracy per epoch (left); test accuracy of the SNN seeds and the baselines (right)."""
    fig = Figure(figsize=(11, 4))
    ax = fig.add_subplot(1, 2, 1)
    for s, v in m["per_seed"].items():
        ax.plot(np.arange(1, len(v["train_acc"]) + 1), v["train_acc"], "o-", label=f"SNN seed {s} (train)")
    ax.axhline(1 / 3, color="k", ls=":", lw=1, label="chance")
    ax.set(xlabel="epoch", ylabel="training accuracy", title="Barrel SNN training")
    ax.legend(fontsize=8)
    ax = fig.add_subplot(1, 2, 2)
    names = [f"SNN s{s}" for s in m["per_seed"]] + list(m["baselines"])
    vals = [v["test_acc"] for v in m["per_seed"].values()] + list(m["baselines"].values())
    ax.bar(names, vals, color=["C0"] * len(m["per_seed"]) + ["C1"] * len(m["baselines"]), label="test")
    ax.axhline(1 / 3, color="k", ls=":", lw=1, label="chance")
    ax.set(ylabel="test accuracy", ylim=(0, 1), title="SNN vs classical baselines")
    ax.legend(fontsize=8)
    return fig


def deprivation_figure(m: Mapping[str, Any]) -> Figure:
    """Accuracy of every draw and their mean against the number of deprived whiskers."""
    fig = Figure(figsize=(5.5, 4))
    ax = fig.add_subplot()
    ks = sorted(int(k) for k in m["deprivation"])
    for k in ks:
        v = m["deprivation"][str(k)]
        ax.scatter([k] * len(v), v, color="C0", alpha=0.4, s=12)
    ax.plot(ks, [np.mean(m["deprivation"][str(k)]) for k in ks], "o-", color="C0", label="mean over draws")
    ax.axhline(1 / 3, color="k", ls=":", lw=1, label="chance")
    ax.set(xlabel="deprived whiskers", ylabel="test accuracy", title="Whisker deprivation")
    ax.legend(fontsize=8)
    return fig


def raster_figure(m: Mapping[str, Any]) -> Figure:
    """The first test trial's spikes in torch and in brian2 (float64 jacobi twin), side by side."""
    fig = Figure(figsize=(11, 4))
    T, N = m["raster_shape"]
    for n, key in enumerate(("torch", "brian2")):
        ax = fig.add_subplot(1, 2, n + 1)
        pts = np.asarray(m["raster"][key]).reshape(-1, 2)
        ax.scatter(pts[:, 0], pts[:, 1], s=2, color="k", label=f"{len(pts)} spikes")
        ax.set(xlabel="time step", ylabel="neuron (populations 0..12 in order)", xlim=(0, T), ylim=(0, N),
               title=f"{key} (jacobi order, float64)")  # fmt: skip
        ax.legend(fontsize=8, loc="upper right")
    return fig


def rates_figure(rates: list[float]) -> Figure:
    """Firing rate per subtype of the full-scale brian2 column (E red, I blue)."""
    fig = Figure(figsize=(8, 4))
    ax = fig.add_subplot()
    names = [p.name for p in POPULATIONS]
    cols = ["C3" if p.kind == "E" else "C0" for p in POPULATIONS]
    ax.bar(names, rates, color=cols, label="red E, blue I")
    ax.set(ylabel="spikes per step", title="brian2, 4,218 neurons (untrained): rate per subtype")
    ax.tick_params(axis="x", rotation=60)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def plots(report: Report) -> dict[str, Figure]:
    """Training curves and accuracies; deprivation curve; torch vs brian2 raster; full-scale rates."""
    m: Mapping[str, Any] = report.metrics
    figs = {"accuracy": accuracy_figure(m), "deprivation": deprivation_figure(m), "raster": raster_figure(m)}
    rates = m.get("population_rates_full") or []
    if rates:
        figs["subtype_rates"] = rates_figure(rates)
    return figs
