"""The claims, from the records only; each with its source in the paper (or "ours")."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from paperkit import Claim, ci_claim, paired_difference

from plnl.reproduce.config import Config

if TYPE_CHECKING:
    from plnl.reproduce.run import Records

__all__ = ["best_baseline", "claims", "final_diagnostics", "precisions"]

ABLATION_TEXT = {
    "plnl_no_plg": "without positive label guessing",
    "plnl_no_nle": "without negative label enhancement",
}


def precisions(h: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """PLG precision ``plg_right / flagged`` and NLE precision ``1 - nle_wrong / added`` (NaN where PLG
    flagged nothing or NLE added nothing), beside the raw fractions."""
    with np.errstate(divide="ignore", invalid="ignore"):
        plg = np.where(h["flagged"] > 0, h["plg_right"] / h["flagged"], np.nan)
        nle = np.where(h["added"] > 0, 1 - h["nle_wrong"] / h["added"], np.nan)
    return {**h, "plg_precision": plg, "nle_precision": nle}


def final_diagnostics(records: Records, method: str = "plnl") -> dict[str, np.ndarray]:
    """``(n_seeds,)`` arrays of the last epoch's PLG/NLE diagnostics of ``method`` at its chosen lr."""
    rs = records.at(method)
    return precisions({k: np.array([r.history[k][-1] for r in rs], dtype=float) for k in rs[0].history})


def best_baseline(records: Records, config: Config) -> str:
    """The baseline with the highest mean dev accuracy at its chosen lr (chosen without the test split)."""
    dev = {m: np.mean([r.dev_acc for r in records.at(m)]) for m in config.baselines}
    return max(dev, key=lambda m: dev[m])


def claims(records: Records, config: Config) -> tuple[list[Claim], dict[str, Any]]:
    mg, seeds = config.margins, records.seeds
    rng = np.random.default_rng(0)
    plnl, scl, ens = records.test("plnl"), records.test("scl_log"), records.test("scl_log_ens")
    best = best_baseline(records, config)
    d_ens = paired_difference(plnl, ens, rng=rng, names=("PLNL", "SCL-LOG x2"), seeds=seeds)
    d_best = paired_difference(plnl, records.test(best), rng=rng, names=("PLNL", best), seeds=seeds)
    diag = final_diagnostics(records)
    where = f"{config.n_train} digits, nc = {config.nc}, {config.pre_epochs} + {config.epochs} epochs"
    out = [
        Claim.between(
            "gate-baseline-learns-unsaturated",
            f"Gate ({where}): SCL-LOG learns from complementary labels but is not saturated",
            "mean test accuracy of SCL-LOG (one network, all epochs) over seeds",
            float(scl.mean()), mg.gate_low, mg.gate_high, paper="ours (gate; chance 0.10)",
            details={f"seed{s}": float(v) for s, v in zip(seeds, scl, strict=True)},
        ),
        ci_claim(
            "plnl-beats-scl-log-ensemble",
            f"PLNL beats the previous CLL state of the art ({where}); fair baseline: two SCL-LOG networks "
            "ensembled like PLNL's pair",
            "paired test accuracy PLNL - SCL-LOG two-network ensemble",
            d_ens, above=mg.over_ensemble,
            paper="abstract: STL-10 34.96% -> 55.25% (+20.3 pts); tables not accessible",
        ),
        ci_claim(
            "plnl-beats-best-baseline",
            f"PLNL beats every CLL baseline ({where}); the strongest one picked on the dev split",
            f"paired test accuracy PLNL - {best}",
            d_best, above=mg.over_best, paper="abstract / experiments (SOTA over all baselines)",
        ),
        Claim.at_least(
            "plg-precision",
            "PLG's pseudo-labels of highly-confident examples are almost all right (its error is bounded)",
            "mean over seeds, last epoch: flagged examples whose pseudo-label is the true label",
            float(diag["plg_precision"].mean()), mg.plg_precision,
            paper="Sec. theory: PLG error rate upper-bounded (spec: >= 0.95)",
            details={"min_over_seeds": float(diag["plg_precision"].min())},
        ),
        Claim.at_least(
            "plg-coverage",
            "PLG flags a large part of the training set as highly-confident by the end",
            "mean over seeds, last epoch: fraction of training examples flagged",
            float(diag["flagged"].mean()), mg.plg_flagged, paper="spec: >= 0.7 at 1,440 digits (ours here)",
        ),
        Claim.at_least(
            "nle-precision",
            "NLE's added complementary labels are almost all truly wrong classes (its error is bounded)",
            "mean over seeds, last epoch: added labels that are not the true class",
            float(diag["nle_precision"].mean()), mg.nle_precision,
            paper="Sec. theory: NLE error rate upper-bounded (spec: >= 0.98)",
            details={"added_per_example": float(diag["added"].mean())},
        ),
    ]  # fmt: skip
    for m in config.ablations:
        if m not in ABLATION_TEXT:
            continue
        d = paired_difference(records.test(m), plnl, rng=rng, names=(m, "PLNL"), seeds=seeds)
        out.append(Claim.at_most(
            f"ablation-{m.removeprefix('plnl_').replace('_', '-')}",
            f"PLNL {ABLATION_TEXT[m]} does not beat full PLNL",
            f"mean paired test accuracy {m} - PLNL over seeds",
            d.interval.estimate, mg.ablation_slack, paper="ablation study (spec claim 4, not calibrated)",
            details=d.details(),
        ))  # fmt: skip
    metrics = {
        "test_acc": {m: records.test(m).tolist() for m in records.chosen},
        "plnl_minus_ensemble": d_ens.to_dict(),
        "plnl_minus_best": d_best.to_dict(),
        "best_baseline": best,
        "plnl_final": {k: v.tolist() for k, v in diag.items()},
    }
    return out, metrics
