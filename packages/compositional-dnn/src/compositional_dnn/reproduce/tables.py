"""Rows for results.md, from the records only."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from compositional_dnn.analysis import exponents_over_seeds
from compositional_dnn.reproduce.config import Config

if TYPE_CHECKING:
    from compositional_dnn.reproduce.run import Records

__all__ = ["tables"]


def _ms(x: np.ndarray) -> str:
    return f"{np.mean(x):.3f} ± {np.std(x):.2g}"


def tables(rec: Records, config: Config) -> dict[str, list[dict[str, Any]]]:
    Ns = np.asarray(config.Ns, float)
    scaling, gaps = [], []
    for key, by_method in rec.test_mse.items():
        for name, err in by_method.items():
            a = exponents_over_seeds(Ns, err)
            row: dict[str, Any] = {"cell": key, "method": name}
            row.update({f"MSE@{N}": _ms(err[:, j]) for j, N in enumerate(config.Ns)})
            row["alpha (mean ± SE)"] = f"{a.mean():.3f} ± {a.std(ddof=1) / np.sqrt(len(a)):.3f}"
            scaling.append(row)
            cx = rec.complexity[key][name]
            if np.isfinite(cx).all():
                gap = err[:, -1] - rec.train_mse[key][name][:, -1]
                gaps.append({"cell": key, "method": name, "complexity@N_max": _ms(cx[:, -1]),
                             "test - train MSE @N_max": _ms(gap)})  # fmt: skip
    tuned = [
        {"cell": key, "method": m, **t["setting"], "dev MSE": f"{t['dev_mse']:.4f}",
         "grid dev MSE": ", ".join(f"{s:.4f}" for s in t["grid_scores"])}
        for key, by_m in rec.tuned.items() for m, t in by_m.items()
    ]  # fmt: skip
    return {
        "Test MSE (mean ± sd over seeds) and decay exponent alpha": scaling,
        "Tuning on the dev split (first seed of each cell)": tuned,
        "Complexity proxy (bound numerator / sqrt N) vs generalisation gap": gaps,
    }
