"""Rows for results.md, from the records only."""

from __future__ import annotations

from typing import Any

import numpy as np

from ntk_divergence.reproduce.config import Config

__all__ = ["tables"]


def _ms(x: np.ndarray) -> str:
    return f"{np.mean(x):.4g} ± {np.std(x):.2g}"


def _row(label: dict[str, Any], trs: list[Any]) -> dict[str, Any]:
    return label | {
        "||θ_S-θ_0||": _ms(np.array([t.param_dist[-1] for t in trs])),
        "kernel change": _ms(np.array([t.kernel_change[-1] for t in trs])),
        "λ_min(K_0)→λ_min(K_S)": f"{np.mean([t.lambda_min[0] for t in trs]):.3g}→"
        f"{np.mean([t.lambda_min[-1] for t in trs]):.3g}",
        "min margin": _ms(np.array([t.min_margin[-1] for t in trs])),
        "loss": f"{np.mean([t.loss[-1] for t in trs]):.2e}",
    }


def tables(
    pd: dict[str, np.ndarray],
    sweep: np.ndarray,
    res_sweep: np.ndarray,
    traces: dict[str, Any],
    cases: dict[str, Any],
    config: Config,
) -> dict[str, list]:
    runs = [
        _row({"method": name, "width": m}, trs)
        for name in ("network-ce", "network-mse", "kernel-ce")
        for m, trs in traces[name].items()
    ]
    by_name = {c.name: c for c in config.cases}
    case_rows = [
        _row({"case": c, "width": by_name[c].width, "steps": by_name[c].steps, "method": name}, tr[name])
        for c, tr in cases.items()
        for name in ("network-ce", "network-mse")
    ]
    sw = [
        {"width": m, "FCN ‖K_0−Θ‖/‖Θ‖": _ms(sweep[:, j]), "ResNet ‖K_0−Θ‖/‖Θ‖": _ms(res_sweep[:, j])}
        for j, m in enumerate(config.sweep_widths)
    ]
    pdt = [{
        "min λ_min/(trΘ/n)": f"{pd['pd_ratio'].min():.3g}", "max condition": f"{pd['condition'].max():.3g}",
        "max |λ_min| no bias": f"{np.abs(pd['nobias_lambda']).max():.2e}",
        "ResNet min λ_min/(trΘ/n)": f"{pd['resnet_pd_ratio'].min():.3g}",
    }]  # fmt: skip
    return {
        "Training runs, FCN width sweep (mean ± sd over seeds, at t = S)": runs,
        "Extra cases (ResNet, digits; mean ± sd over seeds, at t = S)": case_rows,
        "Width sweep at init": sw,
        "Strict PD": pdt,
    }
