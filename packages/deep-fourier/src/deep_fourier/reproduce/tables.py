"""Rows for results.md, from the records only."""

from __future__ import annotations

from typing import Any

import numpy as np

from deep_fourier.reproduce.config import Config
from deep_fourier.training import History

__all__ = ["tables"]


def _ms(x: np.ndarray) -> str:
    return f"{np.mean(x):.3f} ± {np.std(x):.3f}"


def tables(
    records: dict[str, dict[str, list[History]]], config: Config, lams: dict[str, Any]
) -> dict[str, list]:
    out: dict[str, list] = {}
    for scen, by_method in records.items():
        rows = []
        for m, hs in by_method.items():
            tr = np.stack([h.train_accuracy for h in hs])
            on = np.stack([h.online_accuracy for h in hs])
            te = np.stack([h.test_accuracy for h in hs])
            rows.append(
                {
                    "method": m,
                    "λ": lams.get(scen, {}).get(m, "—"),
                    "params": hs[0].n_parameters,
                    "train acc, last 5 tasks": _ms(tr[:, -5:].mean(1)),
                    "best task": _ms(tr.max(1)),
                    "online acc, all tasks": _ms(on.mean(1)),
                    "online acc, last 5": _ms(on[:, -5:].mean(1)),
                    "final test acc": "—" if np.isnan(te).all() else _ms(te[:, -1]),
                    "dead units (end)": _ms(np.stack([h.dead_fraction[-1] for h in hs])),
                    "effective rank (end)": _ms(np.stack([h.effective_rank[-1] for h in hs])),
                }
            )
        out[f"{scen} (mean ± sd over {len(next(iter(by_method.values())))} seeds)"] = rows
    return out
