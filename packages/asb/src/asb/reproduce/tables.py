"""results.md tables from the cells: ASR / PNA / NRP per condition (mean and range over seeds)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from asb.metrics import nrp

__all__ = ["summary_rows", "tables"]


def summary_rows(cells: Sequence[Any]) -> list[dict[str, Any]]:
    """One row per (attack, defense): mean ASR, strict ASR, success rate, NRP, plan failures, cases."""
    keys = list(dict.fromkeys((c.attack, c.defense) for c in cells))
    pna = {c.seed: c.success for c in cells if c.attack == "none" and c.defense == "none"}
    rows = []
    for attack, defense in keys:
        group = [c for c in cells if (c.attack, c.defense) == (attack, defense)]
        asr = np.array([c.asr for c in group])
        nrps = [nrp(pna[c.seed], c.asr) for c in group if c.seed in pna and "@" not in attack]
        rows.append({
            "attack": attack, "defense": defense, "ASR": round(float(asr.mean()), 4),
            "ASR range": f"{asr.min():.3f}-{asr.max():.3f}",
            "ASR (tool executed)": round(float(np.mean([c.asr_tool for c in group])), 4),
            "success (PNA/BP)": round(float(np.mean([c.success for c in group])), 4),
            "NRP": round(float(np.mean(nrps)), 4) if nrps else "",
            "plan failures": int(sum(c.plan_failures for c in group)), "cases": int(sum(c.n for c in group)),
        })  # fmt: skip
    return rows


def tables(cells: Sequence[Any]) -> dict[str, list[dict[str, Any]]]:
    return {"conditions": summary_rows(cells)}
