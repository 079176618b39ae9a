"""The spec's three claims (toy analogues of the paper's), with the gates that must hold first."""

from __future__ import annotations

from typing import Any

import numpy as np
from paperkit import Claim, ci_claim, paired_difference

from video_brain_rsa.data import ROIS
from video_brain_rsa.reproduce.config import Config

__all__ = ["claims", "per_seed"]

VIDEO = ("conv3d", "conv2d-temporal")
IMAGE = "frame-cnn"
ARCHS = (*VIDEO, IMAGE)
MATCH = {"pixels": "V1", "motion-energy": "MT", "label-action": "action", "label-object": "object"}


def per_seed(records: list[dict[str, Any]], key: str = "loso") -> dict[str, dict[str, np.ndarray]]:
    """``{model: {roi: (n_seeds,)}}`` best-layer scores (``key`` "loso" or "in_sample")."""
    names = list(records[0]["models"])
    return {m: {roi: np.array([r["models"][m][key][roi] for r in records]) for roi in ROIS} for m in names}


def _gates(records: list[dict[str, Any]], config: Config) -> list[Claim]:
    mg = config.margins
    unc = np.array([[r["ceilings"][roi][1] for roi in ROIS] for r in records])
    lnc = np.array([[r["ceilings"][roi][0] for roi in ROIS] for r in records])
    peak = [r["hand"][n][MATCH[n]] - max(r["hand"][n][o] for o in ROIS if o != MATCH[n])
            for r in records for n in MATCH]  # fmt: skip
    out = [
        Claim.between("gate-noise-ceiling", "Gate: the synthetic subjects' upper noise ceiling is about 0.5",
                      "min over seeds and ROIs of UNC (Net2Brain convention; details: max)", float(unc.min()),
                      *mg.ceiling_range, paper="spec: UNC about 0.4-0.7 (ours as a gate)",
                      details={"max_unc": float(unc.max())}),
        Claim.at_most("gate-lower-below-upper", "Gate: the lower noise ceiling never exceeds the upper one",
                      "max over seeds and ROIs of LNC - UNC", float((lnc - unc).max()), 0.0,
                      paper="ours (property of the ceilings)"),
        Claim.at_least("gate-hand-crafted-peaks", "Gate: each hand-crafted RDM scores best in its own ROI",
                       "min over seeds and the 4 baselines of R(own ROI) - max R(other ROIs)",
                       float(min(peak)), 0.0, paper="spec quick-mode check (ours as a gate)"),
        Claim.at_most("gate-hand-crafted-significant",
                      "Gate: each hand-crafted RDM is significant in its ROI",
                      "max over seeds and baselines of the permutation p in the matching ROI",
                      float(max(r["hand_p"][n] for r in records for n in MATCH)), config.margins.p_best,
                      paper="spec quick-mode check (ours as a gate)"),
    ]  # fmt: skip
    if not config.models:
        return out
    seen = [r["models"][f"{a}/action"]["dev_accuracy"] for r in records for a in VIDEO]
    seen += [r["models"][f"{a}/object"]["dev_accuracy"] for r in records for a in ARCHS]
    return [*out,
        Claim.at_least("gate-models-learn",
                       "Gate: every model learns each task it can see before claims are judged",
                       "min over seeds of dev accuracy (video models on action, all models on object)",
                       float(min(seen)), mg.learned,
                       paper="ours (gate); chance 0.2 (action) / 0.25 (object)"),
    ]  # fmt: skip


def claims(records: list[dict[str, Any]], config: Config, seeds: tuple[int, ...]) -> tuple[list[Claim], dict]:
    mg = config.margins
    q = per_seed(records)
    rng = np.random.default_rng(0)
    out = _gates(records, config)
    unc = {roi: np.array([r["ceilings"][roi][1] for r in records]) for roi in ROIS}
    if not config.models:
        return out, {"unc_mean": {roi: float(v.mean()) for roi, v in unc.items()}}
    for a in VIDEO:
        d = paired_difference(
            q[f"{a}/action"]["MT"], q[f"{IMAGE}/action"]["MT"], names=(a, IMAGE), rng=rng, seeds=seeds
        )
        out.append(ci_claim(
            f"temporal-{a}-mt", f"Temporal modelling is key for the motion ROI ({a} vs the image model, both "
            "action-trained)", "paired R_LOSO(MT) difference over seeds", d, above=mg.temporal,
            paper="Abstract / Sec. 4 (temporal modelling -> early ROIs); spec claim 1: >= 0.05",
        ))  # fmt: skip
    for a in ARCHS:
        d = paired_difference(q[f"{a}/action"]["action"], q[f"{a}/object"]["action"],
                              names=("action-trained", "object-trained"), rng=rng, seeds=seeds)  # fmt: skip
        out.append(ci_claim(
            f"task-{a}-action-roi", f"An action task is key for the high-level action ROI ({a})",
            "paired R_LOSO(action ROI) difference, action- minus object-trained", d, above=mg.task,
            paper="Abstract / Sec. 4 (task -> higher ROIs); spec claim 2: >= 0.05 for both architectures",
        ))  # fmt: skip
    excess = max(float((q[m][roi] - unc[roi]).max()) for m in q for roi in ROIS)
    gap = [float((q[f"{a}/action"]["action"] - q[f"{a}/untrained"]["action"]).min()) for a in ARCHS]
    out += [
        Claim.at_most("sanity-below-ceiling", "Every model scores at most the upper noise ceiling",
                      "max over seeds, models and ROIs of R_LOSO - UNC", excess, mg.ceiling_slack,
                      paper="spec claim 3: <= UNC + 0.02"),
        Claim.at_most("sanity-best-significant",
                      "The best model of each ROI is significant (permutation test)",
                      "max over seeds and ROIs of the best model's p (two-sided, no +1 correction)",
                      float(max(r["best_p"][roi]["p"] for r in records for roi in ROIS)), mg.p_best,
                      paper="spec claim 3: p < 0.01"),
        Claim.at_least("sanity-trained-beats-untrained",
                       "Trained models beat their untrained copies on the action ROI",
                       "min over architectures and seeds of R_LOSO(action-trained) - R_LOSO(untrained), "
                       "action ROI",
                       min(gap), 0.0, paper="spec claim 3: untrained < trained",
                       details=dict(zip(ARCHS, gap, strict=True))),
    ]  # fmt: skip
    summary = {
        "loso_mean": {m: {roi: float(v.mean()) for roi, v in d.items()} for m, d in q.items()},
        "loso_sd": {m: {roi: float(v.std()) for roi, v in d.items()} for m, d in q.items()},
        "in_sample_mean": {m: {roi: float(v.mean()) for roi, v in d.items()}
                           for m, d in per_seed(records, "in_sample").items()},
        "unc_mean": {roi: float(v.mean()) for roi, v in unc.items()},
    }  # fmt: skip
    return out, summary
