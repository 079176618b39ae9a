"""The paper's claims checked on a run: all claim text, each claim's source and margin, in one place.

Margins live in :class:`~barrel_snn.reproduce.config.Margins`; the baseline comparison (the paper's
+8.6 points) is report-only (a table), since the synthetic sweeps are not the paper's data.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from paperkit import Claim

from barrel_snn.analysis import spearman
from barrel_snn.reproduce.config import Config

if TYPE_CHECKING:
    from barrel_snn.reproduce.run import Records

#: Where each claim comes from (the README's "source" column).
SOURCES = {
    "learns-task": "above CNN/RNN/LSTM by 8.6 points on average (real data; absolute accuracy not retrieved)",
    "deprivation-lowers-accuracy": (
        "accuracy falls as more whiskers are removed (figure; numbers not retrieved)"
    ),
    "deprivation-monotone": "monotone decline (figure)",
    "constraints-hold": "constraints kept through training (method)",
    "brian2-equals-torch": "(spec claim 4; not in the paper)",
}


def _scale_text(records: Records, config: Config) -> str:
    return (
        f"scale {config.scale:g} ({records.n_neurons} neurons), {config.n_train}/{config.n_test} synthetic "
        f"sweeps, T = {config.frames * config.dt_rep}, {config.epochs} epochs, batch {config.batch}, "
        f"{len(records.seeds)} seed(s)"
    )


def _learning_claims(records: Records, config: Config) -> list[Claim]:
    """The task is learnt (every seed) and the constraints hold after training (all seeds)."""
    accs = [records.per_seed[s].test_acc for s in records.seeds]
    first = records.per_seed[records.seeds[0]]
    viol = {k: sum(records.per_seed[s].violations[k] for s in records.seeds) for k in first.violations}
    learns = Claim.at_least(
        "learns-task",
        "The constrained barrel-cortex SNN learns 3-way object discrimination from whisker spikes",
        f"test accuracy, minimum over seeds; chance 1/3; {_scale_text(records, config)}",
        min(accs),
        config.margins.acc_min,
        paper=SOURCES["learns-task"],
        details={f"seed{s}": a for s, a in zip(records.seeds, accs, strict=True)},
    )
    constraints = Claim.at_most(
        "constraints-hold",
        "Dale's law, the anatomical masks and the weight/time-constant ranges hold after training",
        "violations after training, all seeds: non-zero weights outside masks + values outside [0, 1] "
        "+ sign errors + negative thalamic weights + tau < 1",
        float(sum(viol.values())),
        0.0,
        paper=SOURCES["constraints-hold"],
        details={k: float(v) for k, v in viol.items()},
    )
    return [learns, constraints]


def _deprivation_claims(records: Records, config: Config) -> list[Claim]:
    """Deprivation lowers accuracy, monotonically in the number of deprived whiskers (first seed)."""
    dep = records.deprivation
    dep_k = np.concatenate([[k] * len(v) for k, v in dep.items()]).astype(float)
    dep_acc = np.concatenate([v for v in dep.values()])
    dep_mean = {str(k): float(np.mean(v)) for k, v in dep.items()}
    kmax = max(config.dep_counts)
    lowers = Claim.at_least(
        "deprivation-lowers-accuracy",
        "Whisker deprivation lowers accuracy",
        f"intact test accuracy minus mean accuracy with {kmax} deprived whiskers "
        f"({config.dep_draws} draws), first seed",
        dep_mean["0"] - dep_mean[str(kmax)],
        config.margins.dep_drop_min,
        paper=SOURCES["deprivation-lowers-accuracy"],
        details={f"acc_{k}_whiskers": v for k, v in dep_mean.items()},
    )
    monotone = Claim.at_most(
        "deprivation-monotone",
        "Accuracy decreases with the number of deprived whiskers",
        "Spearman correlation of #deprived whiskers and accuracy over all draws, first seed",
        spearman(dep_k, dep_acc),
        config.margins.dep_spearman_max,
        paper=SOURCES["deprivation-monotone"],
    )
    return [lowers, monotone]


def _brian2_claim(records: Records, config: Config) -> Claim:
    """brian2 equals torch spike for spike (float64 jacobi twin); the other twins are details."""
    twins = records.twins
    f64 = twins["jacobi_f64"]
    full = records.full_scale
    return Claim.at_least(
        "brian2-equals-torch",
        "brian2 reproduces the torch network spike for spike under the shared (jacobi) update order",
        f"fraction of identical raster entries, float64, trained weights, {config.brian_trials} test "
        f"trial(s) x {f64.torch_raster[0].shape[0]} steps x {records.n_neurons} neurons",
        f64.identical_fraction,
        1.0,
        paper=SOURCES["brian2-equals-torch"],
        details={
            "mismatches_f64": f64.mismatches,
            "torch_spikes_f64": f64.torch_spikes,
            "identical_fraction_f32": twins["jacobi_f32"].identical_fraction,
            "identical_fraction_sequential_vs_brian2": twins["sequential_f64"].identical_fraction,
            **({"identical_fraction_full_scale_untrained": full.identical_fraction} if full else {}),
        },
    )


def claims(records: Records, config: Config) -> list[Claim]:
    """Every claim of the run, in the README's order."""
    learns, constraints = _learning_claims(records, config)
    return [learns, *_deprivation_claims(records, config), constraints, _brian2_claim(records, config)]
