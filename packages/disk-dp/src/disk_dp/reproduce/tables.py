"""The results tables and the run's notes, from records only."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from disk_dp.reproduce.config import HEAD, PRED_METHODS, QUAD_METHODS

if TYPE_CHECKING:
    from disk_dp.reproduce.config import Config
    from disk_dp.reproduce.run import Records

Rows = list[dict[str, Any]]


def accuracy_table(records: Records) -> Rows:
    """One row per classification case: lr, σ, test accuracy (mean, std over seeds), ε, seconds a run."""
    rows = []
    for case, r in records.classification.items():
        accs = np.asarray(r.acc_per_seed)
        rows.append(
            {
                "data": case.dataset,
                "target eps": case.eps,
                "method": case.method,
                "lr": r.lr,
                "sigma": round(r.sigma, 4),
                "test acc % (mean)": 100 * float(accs.mean()),
                "std": 100 * float(accs.std(ddof=1)) if len(accs) > 1 else 0.0,
                "reported eps": r.eps_reported[0],
                "s/run": records.seconds[case],
            }
        )
    return rows


def quadratic_tables(records: Records) -> dict[str, Rows]:
    """The spec setting's tail excess per method, and the unclipped regime against the filter algebra."""
    quad = records.quadratic
    dp = quad["DP-SGD"].tail_excess_mean
    spec = [
        {
            "method": m,
            "tail excess loss (mean)": quad[m].tail_excess_mean,
            "ratio to DP-SGD": quad[m].tail_excess_mean / dp,
        }
        for m in QUAD_METHODS
    ]
    algebra = [
        {
            "lr": f"{lr:g}",
            "method": m,
            "tail excess measured": p.methods[m].measured,
            "predicted": p.methods[m].predicted,
            "ratio to DP-SGD measured": p.methods[m].measured / p.methods["DP-SGD"].measured,
            "ratio to DP-SGD predicted": p.methods[m].predicted / p.methods["DP-SGD"].predicted,
        }
        for lr, p in records.prediction.items()
        for m in PRED_METHODS
    ]
    return {
        "Noisy quadratic: tail excess loss": spec,
        "Noisy quadratic, unclipped: measured vs the filter algebra": algebra,
    }


def tables(records: Records) -> dict[str, Rows]:
    """Every table of the run, in results.md's order."""
    out: dict[str, Rows] = {"Test accuracy": accuracy_table(records), **quadratic_tables(records)}
    tune_rows = [
        {"data": ds, **row}
        for ds, tuned in records.tuning.items()
        for t in tuned.values()
        for row in t.rows()
    ]
    if tune_rows:
        out["lr search on the dev split (epsilon = 1, mean over tune seeds)"] = tune_rows
    out["Accountant check"] = [
        {
            "q": r.q,
            "sigma": r.sigma,
            "T": r.T,
            "eps ours": r.eps_ours,
            "eps reference": r.eps_reference,
            "rel diff": r.rel_diff,
        }
        for r in records.accountant.rows
    ]
    if records.timing is not None:
        base = records.timing["DP-SGD"]
        out["Step time"] = [
            {"method": k, "median ms/step": 1e3 * v, "ratio to DP-SGD": v / base}
            for k, v in records.timing.items()
        ]
    return out


def notes(records: Records, config: Config) -> list[str]:
    """How σ is found, DiSK's settings, the accountant's reference, and what step times are."""
    return [
        "sigma for each target epsilon is found by bisection on our RDP accountant (Opacus' orders, "
        "Balle et al. 2020 conversion) for T = epochs / q Poisson steps; DiSK and DP-SGD share it.",
        f"DiSK: kappa = {config.kappa}, gamma = {config.gamma} "
        f"(c = {(1 - config.kappa) / (config.kappa * config.gamma):.3f}, two gradients a step); the "
        "ReadMe's filter weight (kappa on the new observation), no noise rescaling; "
        f"'{HEAD}' is the current official KFoptimizer.py form (legacy_weight=True).",
        f"Accountant reference: {records.accountant.reference}.",
        "Step times are process CPU time (medians of interleaved steps after warm-up) and go to "
        "tables/claims only, never to metrics.",
    ]
