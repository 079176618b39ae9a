"""Metrics, tables and notes of the report, from the records only."""

from __future__ import annotations

from typing import Any

import numpy as np

from genre.reproduce.claims import mean_ci, pooled
from genre.reproduce.run import Records

_METRICS = ("cost", "validity", "gold_validity", "gold_prob", "lof_inlier", "valid_plausible")


def _methods(rec: Records, d: str) -> list[str]:
    return list(rec.cells[(d, rec.seeds[0])].metrics)


def summary(rec: Records, d: str) -> dict[str, Any]:
    """Per data set: pooled means, per-seed means, negatives, classifier accuracy and attempts."""
    cells = [rec.cells[(d, s)] for s in rec.seeds]
    methods = _methods(rec, d)
    return {
        "means": {m: {k: float(pooled(rec, d, m, k).mean()) for k in _METRICS} for m in methods},
        "per_seed": {
            m: {k: [float(c.metrics[m][k].mean()) for c in cells] for k in _METRICS} for m in methods
        },
        "cost_ci": {m: mean_ci(rec, d, m, "cost").to_dict() for m in methods},
        "n_neg": [c.n_neg for c in cells],
        "clf_test_acc": [c.clf_test_acc for c in cells],
        "clf_attempts": [c.clf_attempts for c in cells],
        "uniform_target_cost": float(np.concatenate([c.rand_target_cost for c in cells]).mean()),
    }


def metrics(rec: Records) -> dict[str, Any]:
    first = rec.cells[(rec.config.datasets[0], rec.seeds[0])]
    return {
        "seeds": list(rec.seeds),
        "datasets": {d: summary(rec, d) for d in rec.config.datasets},
        "toy": {
            "ks": rec.toy.ks,
            "ks_raw": rec.toy.ks_raw,
            "ks_rival_unconditional": rec.toy.ks_rival,
            "queries": list(rec.toy.queries),
        },
        "example": {
            "dataset": first.dataset,
            "X_train": first.X_train,
            "y_train": first.y_train,
            "recourse": dict(first.recourse),
        },
    }


def tables(rec: Records) -> dict[str, list[dict[str, Any]]]:
    rows: list[dict[str, Any]] = []
    for d in rec.config.datasets:
        for m in _methods(rec, d):
            ci = mean_ci(rec, d, m, "cost")
            rows.append(
                {
                    "dataset": d,
                    "method": m,
                    "cost (L1) [95% CI]": f"{ci.estimate:.3f} [{ci.low:.3f}, {ci.high:.3f}]",
                    "validity h": float(pooled(rec, d, m, "validity").mean()),
                    "gold validity": float(pooled(rec, d, m, "gold_validity").mean()),
                    "LOF inlier": float(pooled(rec, d, m, "lof_inlier").mean()),
                    "h- and gold-valid, inlier": float(pooled(rec, d, m, "valid_plausible").mean()),
                    "s / cell": float(np.mean([rec.cells[(d, s)].recourse_s[m] for s in rec.seeds])),
                }
            )
    return {"Recourse metrics (pooled over seeds' negatives)": rows}


def notes(rec: Records) -> list[str]:
    cfg = rec.config
    held = ", ".join(f"{d}: {[rec.cells[(d, s)].n_neg for s in rec.seeds]}" for d in cfg.datasets)
    fits = ", ".join(
        f"{d} {m} {np.mean([rec.cells[(d, s)].fit_s[m] for s in rec.seeds]):.0f} s"
        for d in cfg.datasets
        for m in rec.cells[(d, rec.seeds[0])].fit_s
    )
    return [
        f"Seeds {list(rec.seeds)}; negatives: test points with h(x) < 0.5 (at most {cfg.n_neg} a seed; "
        f"{held}). "
        "Every method gives recourse to the same negatives; CIs are percentile bootstraps over negatives "
        f"pooled over seeds ({cfg.n_boot} resamples, level {cfg.level:g}).",
        f"Pair model {cfg.enc_layers}+{cfg.dec_layers} layers, E = {cfg.emb}, {cfg.heads} heads, "
        f"FF {cfg.ff}, "
        f"B = {cfg.n_bins}, {cfg.epochs} epochs, batch {cfg.batch_size}, lr {cfg.lr:g}, K = {cfg.top_k}, "
        f"γ = {cfg.gamma}; sampling k = {cfg.k}, τ_inv = {cfg.inv_temp:g}, σ = {cfg.sigma:g}.",
        "NNR-γ is the nearest training point with y = 1 and h > γ: the nearest point GenRe's own training "
        "target can put mass on; NNR-valid uses h > 0.5.",
        f"Wall seconds (a CPU shared with other jobs): GenRe fits {fits}; all cells and the toy "
        f"{rec.wall_s:.0f} s.",
    ]
