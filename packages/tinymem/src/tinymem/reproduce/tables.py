"""The run's tables and notes for results.md, from the records only."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from tinymem.methods import METHODS

if TYPE_CHECKING:
    from tinymem.reproduce.config import Config
    from tinymem.reproduce.run import Records


def selected_table(records: Records, config: Config) -> list[dict[str, Any]]:
    """The base model, then each method at its selected setting (NaN when none is within the budget)."""
    b = records.base
    rows: list[dict[str, Any]] = [
        {"method": "none (base model)", "family": "-", "param": "-", "value": math.nan,
         "% memorised": b.scores.mem, "acc k=7 (%)": b.scores.acc, "acc drop (pts)": 0.0, "ppl": b.scores.ppl,
         "seconds": b.train_seconds}
    ]  # fmt: skip
    for name in config.methods:
        s = records.selected[name]
        m = METHODS[name]
        if s is None:
            rows.append(
                {"method": name, "family": m.family, "param": m.param, "value": math.nan,
                 "% memorised": math.nan, "acc k=7 (%)": math.nan, "acc drop (pts)": math.nan,
                 "ppl": math.nan, "seconds": math.nan}
            )  # fmt: skip
            continue
        rows.append(
            {"method": name, "family": s.family, "param": s.param, "value": s.setting.value,
             "% memorised": s.scores.mem, "acc k=7 (%)": s.scores.acc, "acc drop (pts)": s.scores.acc_drop,
             "ppl": s.scores.ppl, "seconds": s.seconds}
        )  # fmt: skip
    return rows


def sweep_table(records: Records) -> list[dict[str, Any]]:
    """Every setting of every method."""
    return [
        {"method": r.setting.method, "param": r.param, "value": r.setting.value, "% memorised": r.scores.mem,
         "% clean-correct": r.scores.clean_correct, "acc k=7 (%)": r.scores.acc,
         "acc drop (pts)": r.scores.acc_drop, "acc all k (%)": r.scores.acc_all_k, "seconds": r.seconds}
        for r in records.settings.values()
    ]  # fmt: skip


def tables(records: Records, config: Config) -> dict[str, list[dict[str, Any]]]:
    """Every table of results.md."""
    return {
        "Selected configuration per method": selected_table(records, config),
        "Every configuration": sweep_table(records),
    }


def notes(records: Records, config: Config) -> list[str]:
    """What the run did, in sentences for results.md."""
    b = records.base
    return [
        f"{b.n_params} parameters; {b.n_train_rows} training rows ({config.data.n_noise} noised × "
        f"{config.data.duplicates}); {b.n_eligible} eligible noised sequences, {b.n_memorised} memorised "
        "by the base model (the unlearning memorised set).",
        "% memorised: greedy continuation of the clean prompt (P = 20 tokens) equals the noised training "
        "continuation on all K = 20 tokens. acc: official next-token accuracy on held-out k=7 sequences "
        "(every position, PAD targets included); acc drop = base acc − method acc (points).",
        f"Selection rule (every method): lowest % memorised with acc drop ≤ {config.max_acc_drop:g} points.",
        "seconds: process CPU time (time.process_time) of the mitigation itself (retraining for "
        "regularizers; scoring + ablation for neuron methods), single thread.",
    ]
