"""The run's tables and notes for results.md, from the records only."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from lrnn_state_tracking.tasks import get_task
from lrnn_state_tracking.training import scaled_accuracy

if TYPE_CHECKING:
    from lrnn_state_tracking.reproduce.config import Config
    from lrnn_state_tracking.reproduce.run import Records

ACCURACY_NOTE = (
    "Accuracy is at the answer token (parity / mod-3: the last bit; mod-5: '='), float32, on fresh "
    "sequences; scaled accuracy = (acc - 1/K)/(1 - 1/K)."
)


def accuracy_rows(records: Records, config: Config) -> list[dict[str, Any]]:
    """One row per block and model: its regime, accuracies per seed and mean training seconds."""
    rows = []
    for exp in config.experiments:
        n_classes = get_task(exp.task).n_classes
        lo, hi = exp.train_len or config.train_len
        for name, runs in records.block(exp.key).items():
            accs = [r.acc_eval for r in runs]
            rows.append(
                {
                    "block": exp.key,
                    "model": name,
                    "layers × d_model": f"{exp.n_layers} × {exp.d_model}",
                    "d_state": (exp.d_state or config.d_state) if name.startswith("diag") else "",
                    "train lengths": f"{lo}-{hi}",
                    "steps": exp.steps,
                    "seeds": len(runs),
                    f"acc {config.train_len[0]}-{config.train_len[1]}": float(
                        np.mean([r.acc_train_lengths for r in runs])
                    ),
                    f"acc {config.eval_len[0]}-{config.eval_len[1]} (per seed)": ", ".join(
                        f"{a:.3f}" for a in accs
                    ),
                    "scaled acc (mean)": float(np.mean([scaled_accuracy(a, n_classes) for a in accs])),
                    "train s/run": float(np.mean([r.train_seconds for r in runs])),
                }
            )
    return rows


def tables(
    records: Records, config: Config, report_only: dict[str, dict[str, Any]]
) -> dict[str, list[dict[str, Any]]]:
    """Accuracy by block and model; the report-only comparisons when they ran."""
    out: dict[str, list[dict[str, Any]]] = {"Accuracy by block and model": accuracy_rows(records, config)}
    if report_only:
        out["Report-only claims (spec claim 3; not gated)"] = [
            {"claim": k, **{kk: vv for kk, vv in v.items() if kk != "details"}}
            for k, v in report_only.items()
        ]
    return out
