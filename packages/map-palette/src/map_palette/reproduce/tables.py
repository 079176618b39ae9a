"""Rows for results.md, from the records only."""

from __future__ import annotations

from typing import Any

import numpy as np

from map_palette.reproduce.config import VALUE_NAMES, Config

__all__ = ["tables"]


def _ms(x: Any) -> str:
    x = np.asarray(x, float)
    return f"{np.mean(x):.4g} ± {np.std(x):.2g}" if x.size > 1 else f"{float(np.mean(x)):.4g}"


def _decode_rows(dec: list[Any]) -> list[dict[str, Any]]:
    rows = []
    for name in dec[0].fresh_mean:
        row: dict[str, Any] = {"method": name}
        for i, v in enumerate(VALUE_NAMES):
            row[f"{v} (c={np.mean([d.c[i] for d in dec]):.3g})"] = _ms([d.fresh_mean[name][i] for d in dec])
        row["ESS / K"] = _ms([d.fresh_ess[name] for d in dec])
        row["‖λ‖₁"] = _ms([d.lams[name].sum() for d in dec])
        rows.append(row)
    return rows


def tables(gauss: list[Any], feas: list[Any], dec: list[Any], config: Config) -> dict[str, list]:
    g0 = gauss[0]
    gauss_rows = [
        {
            "value": i + 1,
            "λ* (QP)": f"{g0.lam_star[i]:.4f}",
            "λ̂ (samples)": _ms([g.lam_sample[i] for g in gauss]),
            "μ + Σλ*": f"{g0.predicted[i]:.4f}",
            "IS level": _ms([g.realized[i] for g in gauss]),
            "SE": f"{np.mean([g.se[i] for g in gauss]):.2g}",
        }
        for i in range(len(g0.lam_star))
    ]
    feas_rows = [
        {
            "palettes": "LP-infeasible",
            "n": int(sum((f.margin < 0).sum() for f in feas)),
            "dual certified (L-BFGS-B)": _ms(np.concatenate([f.certified[f.margin < 0] for f in feas])),
            "dual certified (official Adam, 150 steps)": _ms(
                np.concatenate([f.adam_certified[f.margin < 0] for f in feas])
            ),
        },
        {
            "palettes": "LP-feasible",
            "n": int(sum((f.margin > 0).sum() for f in feas)),
            "max violation (L-BFGS-B)": f"{max(np.nanmax(f.violation[f.margin > 0]) for f in feas):.2e}",
            "max violation (official Adam)": (
                f"{max(np.nanmax(f.adam_violation[f.margin > 0]) for f in feas):.2e}"
            ),
        },
    ]
    out = {
        "Gaussian rewards: λ* and tilted levels (mean ± sd over seeds)": gauss_rows,
        "Feasibility on bounded rewards": feas_rows,
    }
    if not dec:
        return out
    pal_rows = []
    for q in config.quantiles:
        pal_rows.append(
            {
                "quantile": q,
                "status": ", ".join(d.palettes[q]["status"] for d in dec),
                "KL": _ms([d.palettes[q]["kl"] for d in dec]),
                "ESS / K": _ms([d.palettes[q]["ess"] for d in dec]),
                "λ (seed 0)": np.array2string(np.asarray(dec[0].palettes[q]["lam"]), precision=3),
            }
        )
    out["LM palettes on dev prompts (per-prompt dual)"] = pal_rows
    out["MAP decoding on fresh prompts: mean of kept samples (mean ± sd over seeds)"] = _decode_rows(dec)
    return out
