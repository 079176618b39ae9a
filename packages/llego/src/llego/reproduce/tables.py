"""Rows for results.md, from the records only."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from llego.reproduce.claims import nanmean

__all__ = ["tables"]


def _ms(x: Sequence[float]) -> str:
    return f"{np.mean(x):.4f} ± {np.std(x):.4f}"


def tables(records: Sequence[Any], lm_info: dict[str, dict[str, float]]) -> dict[str, list[dict[str, Any]]]:
    names = list(dict.fromkeys(r.dataset for r in records))
    methods = []
    for n in names:
        rs = [r for r in records if r.dataset == n]
        rows = {
            "LLEGO": [r.llego["best_test"] for r in rs],
            "GP (GATree-style)": [r.gp["test"] for r in rs],
            "CART (tuned)": [r.cart["test"] for r in rs],
        }
        if rs[0].c45 is not None:
            rows["C4.5 stand-in (entropy)"] = [r.c45["test"] for r in rs]
        for m, v in rows.items():
            methods.append({"dataset": n, "method": m, "test (mean ± sd)": _ms(v), "seeds": len(v)})
    mech = []
    for r in records:
        p = r.llego["probes"]
        mech.append(
            {
                "dataset": r.dataset,
                "seed": r.seed,
                "evals": r.llego["n_evals"],
                "valid xo/mut": f"{r.llego['xo_valid_rate']:.2f}/{r.llego['mut_valid_rate']:.2f}",
                "xo fitness guided/blind": f"{nanmean(p['xo_fitness']):.4f}/"
                f"{nanmean(p['xo_blind_fitness']):.4f}",
                "best parent": f"{nanmean(p['xo_parent_best']):.4f}",
                "diversity tau/0.1/likely/uniform": "/".join(
                    f"{nanmean(p[k]):.3f}" for k in ("div_tau", "div_tau0.1", "div_likely", "div_uniform")
                ),
                "best train LLEGO/GP": f"{r.llego['history']['best_train'][-1]:.4f}/"
                f"{r.gp['history']['best_train'][-1]:.4f}",
            }
        )
    lm = [
        {"dataset": n, **{k: (f"{v:.4g}" if isinstance(v, float) else v) for k, v in info.items()}}
        for n, info in lm_info.items()
    ]
    return {
        "Test performance of the chosen tree (over seeds)": methods,
        "Mechanisms per seed": mech,
        "Tiny LM": lm,
    }
