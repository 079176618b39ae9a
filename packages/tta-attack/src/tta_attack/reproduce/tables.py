"""results.md tables from the seed records only."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tta_attack.attacks import ATTACKS
from tta_attack.reproduce.config import Config

__all__ = ["cell", "tables"]

Rows = list[dict[str, Any]]


def cell(values: Sequence[float]) -> str:
    """``mean ± sd`` over seeds, as percentages."""
    v = 100 * np.asarray(values, dtype=float)
    return f"{v.mean():.1f} ± {v.std(ddof=1):.1f}" if len(v) > 1 else f"{v.mean():.1f}"


def _over(records: Sequence[Any], attr: str, keys: Sequence[tuple[str, ...]]) -> str:
    """``cell`` over seeds of ``getattr(record, attr)[k]`` averaged over ``keys``."""
    return cell([float(np.mean([getattr(r, attr)[k] for k in keys])) for r in records])


def tables(records: Sequence[Any], config: Config, alphas: dict[str, float]) -> dict[str, Rows]:
    cs, vs = config.corruptions, config.victims
    by_victim = [
        {"victim": v, **{a: _over(records, "benign", [(v, c, a) for c in cs]) for a in ATTACKS}} for v in vs
    ]
    by_corruption = [
        {"corruption": c, **{a: _over(records, "benign", [(v, c, a) for v in vs]) for a in ATTACKS}}
        for c in cs
    ]
    malicious = [
        {"victim": v, **{a: _over(records, "malicious", [(v, c, a) for c in cs]) for a in ATTACKS}}
        for v in vs
    ]
    defences: Rows = []
    for d in ("medbn", "robust"):
        for v in config.defence_victims:
            row: dict[str, Any] = {"defence": d, "victim": v}
            for a in ("none", "fca", "dia"):
                row[a] = _over(records, "defended", [(d, v, c, a) for c in cs])
            for a in ("none", "fca", "dia"):
                row[f"undefended {a}"] = _over(records, "benign", [(v, c, a) for c in cs])
            defences.append(row)
    return {
        "Benign-slot error (%) by victim, mean ± sd over seeds (averaged over corruptions)": by_victim,
        "Benign-slot error (%) by corruption (averaged over victims)": by_corruption,
        "Malicious-slot error (%) by victim": malicious,
        "Defences: benign-slot error (%) with MedBN / the robust source model": defences,
        "PGD step / eps chosen on the dev batches": [
            {"attack": a, "alpha/eps": r} for a, r in alphas.items()
        ],
    }
