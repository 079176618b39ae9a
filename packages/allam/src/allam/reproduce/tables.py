"""Rows for results.md, from the records only."""

from __future__ import annotations

from typing import Any

import numpy as np

from allam.reproduce.config import Config

__all__ = ["tables"]

KEYS = (("a_bpb", "A bpb"), ("b_bpb", "B bpb"), ("qa_a_em", "A QA EM"),
        ("qa_b_stated_em", "B QA EM (B-stated)"), ("qa_b_aonly_rank", "B QA rank score (A-only)"),
        ("qa_b_aonly_em", "B QA EM (A-only)"),
        ("icl_b_aonly_rank", "in-context translation rank (A-only)"))  # fmt: skip


def _ms(x: list[float]) -> str:
    return f"{np.mean(x):.3f} ± {np.std(x):.2g}"


def tables(records: dict[int, dict[str, Any]], config: Config) -> dict[str, list[dict[str, Any]]]:
    recs = list(records.values())
    rows = [{"model": "base (A only)"} | {label: _ms([r["base"][k] for r in recs]) for k, label in KEYS}]
    for name in config.variants:
        rows.append({"model": name} | {label: _ms([r["variants"][name]["final"][k] for r in recs])
                                       for k, label in KEYS})  # fmt: skip
    tok = [{
        "fertility B (A's tokenizer)": _ms([r["fertility_orig"] for r in recs]),
        "fertility B (expanded)": _ms([r["fertility_expanded"] for r in recs]),
        "fertility A": _ms([r["fertility_a"] for r in recs]),
        "new tokens": _ms([r["n_new_tokens"] for r in recs]),
        "B tokens already in A": _ms([r["n_skipped_existing"] for r in recs]),
        "refused (all-ASCII)": _ms([r["n_refused"] for r in recs]),
    }]  # fmt: skip
    align_rows = []
    for stage in ("cpt", "sft", "sft_dpo"):
        align_rows.append({"model": {"cpt": "expand_mean after CPT", "sft": "+ SFT (2 x steps)",
                                     "sft_dpo": "+ SFT + DPO"}[stage]}
                          | {f"{lang} {k}": _ms([r["align"][stage][f"{lang}_{k}"] for r in recs])
                             for lang in ("A", "B") for k in ("rank", "em")})  # fmt: skip
    return {"Final metrics after CPT (mean ± sd over seeds)": rows, "Tokenizers": tok,
            "Alignment: question QA on held-out facts (mean ± sd over seeds)": align_rows}  # fmt: skip
