"""Tables for results.md, from the run's records only."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from multitp.characters import DIMENSIONS

__all__ = ["tables"]


def tables(
    est: dict[str, np.ndarray], per_seed: Sequence[dict[str, Any]], truth: np.ndarray, langs: Sequence[Any]
) -> dict[str, list[dict[str, Any]]]:
    pooled = np.array([r["pooled"] for r in per_seed]).mean(0)
    half = len(langs) // 2
    vectors = []
    for i, lang in enumerate(langs):
        for who, vec in (
            ("human (respondent)", truth[i]),
            ("tiny LM (seed mean)", pooled[i]),
            ("estimator on sampled answers", est["m_hat"][i]),
        ):
            vectors.append(
                {
                    "language": lang.name,
                    "resource": "high" if i < half else "low",
                    "vector": who,
                    **{d: round(float(v), 3) for d, v in zip(DIMENSIONS, vec, strict=True)},
                }
            )
    mis_rows = []
    for i, lang in enumerate(langs):
        per = [float(np.linalg.norm(r["pooled"][i] - truth[i])) for r in per_seed]
        mis_rows.append(
            {
                "language": lang.name,
                "resource": "high" if i < half else "low",
                "MIS tiny LM (mean)": round(float(np.mean(per)), 3),
                "min/max over seeds": f"{min(per):.3f}/{max(per):.3f}",
                "MIS random": round(float(np.linalg.norm(truth[i])), 3),
                "MIS English pivot": round(
                    float(np.mean([np.linalg.norm(r["pooled"][0] - truth[i]) for r in per_seed])), 3
                ),
                **{
                    f"MIS {b}": round(
                        float(np.mean([np.linalg.norm(r["baselines"][b] - truth[i]) for r in per_seed])), 3
                    )
                    for b in ("utilitarian", "species-only")
                },
                "order consistency": round(float(np.mean([r["order"][i] for r in per_seed])), 3),
                "paraphrase agreement": round(float(np.mean([r["agreement"][i] for r in per_seed])), 3),
            }
        )
    return {"preference_vectors": vectors, "misalignment": mis_rows}
