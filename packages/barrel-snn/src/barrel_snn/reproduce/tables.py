"""The run's tables and notes for results.md, from the records only."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from barrel_snn.reproduce.run import Records

NOTES = (
    "Data: synthetic whisker sweeps (the real h5 files are not available); see the README.",
    "Torch uses the official sequential population order for training; the brian2 check uses a "
    "float64 jacobi twin with the trained weights (sequential vs brian2 is reported as a guard).",
)


def timing_note(records: Records) -> str:
    """Wall-clock seconds of each part, in run order (the notes only: timings are not metrics)."""
    timings = {f"train_seed{s}_s": r.train_seconds for s, r in records.per_seed.items()}
    timings["deprivation_s"] = records.seconds["deprivation_s"]
    timings.update({f"baseline_{k}_s": b.seconds for k, b in records.baselines.items()})
    timings["brian2_agreement_s"] = records.seconds["brian2_agreement_s"]
    return f"Timings (s, shared 2-core machine): {', '.join(f'{k} {v:.1f}' for k, v in timings.items())}."


def accuracy_table(records: Records) -> list[dict[str, Any]]:
    """Test accuracy and training seconds of every seed's SNN and every baseline."""
    rows: list[dict[str, Any]] = [
        {"model": f"barrel SNN ({records.n_neurons} neurons, seed {s})", "test accuracy": r.test_acc,
         "train s": r.train_seconds}
        for s, r in records.per_seed.items()
    ]  # fmt: skip
    rows += [
        {"model": k, "test accuracy": b.test_acc, "train s": b.seconds} for k, b in records.baselines.items()
    ]
    return rows


def baseline_row(records: Records) -> dict[str, float]:
    """The first seed's SNN against the baselines (the paper's +8.6 points; report-only)."""
    snn = records.per_seed[records.seeds[0]].test_acc
    accs = {k: b.test_acc for k, b in records.baselines.items()}
    return {
        "SNN": snn,
        **accs,
        "SNN - mean(LSTM, GRU, CNN)": snn - float(np.mean(list(accs.values()))),
        "SNN - best baseline": snn - max(accs.values()),
    }


def tables(records: Records) -> dict[str, list[dict[str, Any]]]:
    """Every table of results.md."""
    dep_table = [
        {"deprived whiskers": k, "mean accuracy": float(np.mean(v)), "min": min(v), "max": max(v),
         "draws": len(v)}
        for k, v in records.deprivation.items()
    ]  # fmt: skip
    out: dict[str, list[dict[str, Any]]] = {
        "Test accuracy": accuracy_table(records),
        "Baseline comparison (spec claim 5, report-only: not gated)": [baseline_row(records)],
        "Whisker deprivation": dep_table,
    }
    full = records.full_scale
    if full is not None:
        out["brian2 at full scale (untrained, 4,218 neurons)"] = [
            {
                "neurons": full.neurons,
                "synapses": full.synapses,
                "trials": full.trials,
                "brian2_run_s_per_1000_steps": full.brian2_run_s_per_1000_steps,
                "brian2_build_s_per_trial": full.brian2_build_s_per_trial,
                "torch_dense_s_per_1000_steps": full.torch_dense_s_per_1000_steps,
                "identical_fraction": full.identical_fraction,
            }
        ]
        out["Per-subtype activity, brian2 full scale (untrained)"] = full.populations
    return out
