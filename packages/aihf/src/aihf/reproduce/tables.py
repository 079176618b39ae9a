"""Tables for results.md, rendered from records only."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from aihf.experiment import TABULAR_METHODS
from aihf.reproduce.config import Config
from aihf.reproduce.run import REACHER_POLICIES, REWARDS, Records

__all__ = ["tables"]


def _ms(xs: Sequence[float], digits: int = 3) -> str:
    return f"{np.mean(xs):.{digits}f} ± {np.std(xs):.{digits}f}"


def tables(
    records: Records, config: Config, gated: Sequence[Mapping[str, str]]
) -> dict[str, list[dict[str, Any]]]:
    """Tabular scores; Reacher policy scores, reward ranking rates and withheld comparisons (full run)."""
    out: dict[str, list[dict[str, Any]]] = {
        "Normalised true score (mean ± std over seeds)": [
            {
                "case": key,
                **{m: _ms(c.scores[m]) for m in TABULAR_METHODS},
                "BT label flips": f"{np.mean(c.label_flips):.2f}",
            }
            for key, c in records.tabular.items()
        ]
    }
    rs = records.reacher
    if not rs:
        return out
    out["Reacher-v5 policies: zero-torque-normalised true return (0 = zero torque, 1 = PD expert)"] = [
        {
            "seed": r.seed,
            **{k: f"{r.scores[k]:.3f}" for k in REACHER_POLICIES},
            "random": f"{(r.J_random - r.J_zero) / (r.J_expert - r.J_zero):.2f}",
            "J expert": f"{r.J_expert:.2f}",
            "J zero": f"{r.J_zero:.2f}",
            "J random": f"{r.J_random:.2f}",
        }
        for r in rs
    ] + [{"seed": "mean ± std", **{k: _ms([r.scores[k] for r in rs]) for k in REACHER_POLICIES}}]
    out["Reacher-v5 rewards: fraction of held-out targets ranked expert > zero torque"] = [
        {
            "seed": r.seed,
            **{
                f"{w} @ |P|={n}": f"{np.mean(r.ranks[f'{w}@{n}']):.2f}"
                for n in config.reacher_pairs
                for w in REWARDS
            },
        }
        for r in rs
    ] + [
        {
            "seed": "mean",
            **{
                f"{w} @ |P|={n}": f"{np.mean([r.ranks[f'{w}@{n}'] for r in rs]):.3f}"
                for n in config.reacher_pairs
                for w in REWARDS
            },
        }
    ]
    if gated:
        out["Policy-level comparisons withheld (oracle gate failed): neither pass nor fail"] = [
            dict(g) for g in gated
        ]
    return out
