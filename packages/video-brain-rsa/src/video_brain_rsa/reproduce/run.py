"""``run(config, *, seed, device) -> Report``: the synthetic benchmark, paired over seeds.

Seed s draws everything of one replication: the training, dev and stimulus clips, the synthetic
subjects (their noise calibrated on a draw of its own), every model's initial weights (shared by its
action-trained, object-trained and untrained copies) and the permutations. Every model gets the same
learning-rate grid and step budget; the rate is chosen on the first seed's dev split (paperkit.tune)
and kept for all seeds.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from paperkit import Report, check_seed, track, tune

from video_brain_rsa.data import ROIS, Clips, make_subjects, noise_for_ceiling, render_clips
from video_brain_rsa.dissimilarity import rdm, rdm_kernel
from video_brain_rsa.methods import METHODS, ModelRun, run_method
from video_brain_rsa.reproduce.claims import claims
from video_brain_rsa.reproduce.config import Config
from video_brain_rsa.reproduce.tables import tables
from video_brain_rsa.rsa import noise_ceiling, permutation_test, rsa_score
from video_brain_rsa.scoring import best_layer, hand_crafted_rdms, layerwise_scores
from video_brain_rsa.training import accuracy

__all__ = ["TASKS", "Replication", "run", "run_seed"]

TASKS = ("action", "object")
MATCH = {"pixels": "V1", "motion-energy": "MT", "label-action": "action", "label-object": "object"}


@dataclass(frozen=True)
class Replication:
    """One seed's data: clips, the subjects' ROI RDMs and their calibrated noise."""

    train: Clips
    dev: Clips
    stimuli: Clips
    brain: dict[str, np.ndarray]
    noise: dict[str, float]


def _labels(c: Clips, task: str) -> np.ndarray:
    return c.action if task == "action" else c.shape


def replication(config: Config, s: int) -> Replication:
    kw = {"frames": config.frames, "size": config.size}
    stimuli = render_clips(config.n_stimuli, seed=s * 10 + 3, **kw)
    noise = {roi: noise_for_ceiling(stimuli, roi, target=config.target_ceiling, n_subjects=config.n_subjects,
                                    voxels=config.voxels, seed=s * 10 + 4, iters=config.calibration_iters)
             for roi in ROIS}  # fmt: skip
    resp = make_subjects(
        stimuli, noise=noise, n_subjects=config.n_subjects, voxels=config.voxels, seed=s * 10 + 5
    )
    brain = {roi: np.stack([rdm_kernel(r, "correlation") for r in v]) for roi, v in resp.items()}
    train = render_clips(config.n_train, seed=s * 10 + 1, **kw)
    dev = render_clips(config.n_dev, seed=s * 10 + 2, **kw)
    return Replication(train, dev, stimuli, brain, noise)


def _train(
    config: Config, rep: Replication, arch: str, task: str, lr: float, s: int, device: str
) -> ModelRun:
    steps = 0 if task == "untrained" else config.steps
    labels = _labels(rep.train, "action" if task == "untrained" else task)
    return run_method(arch, rep.train.video, labels, rep.stimuli.video, steps=steps, lr=lr,
                      batch_size=config.batch_size, width=config.width, seed=s, device=device)  # fmt: skip


def choose_lrs(config: Config, rep: Replication, s: int, device: str) -> tuple[dict[str, float], dict, list]:
    """The learning rate of each ``arch/task`` (dev accuracy, same grid and budget), and the runs made."""
    cache: dict[tuple[str, str, float], ModelRun] = {}

    def evaluate(name: str, setting: Mapping[str, Any]) -> float:
        arch, task = name.split("/")
        run = _train(config, rep, arch, task, setting["lr"], s, device)
        cache[(arch, task, setting["lr"])] = run
        return accuracy(run.model, rep.dev.video, _labels(rep.dev, task), device=device)

    names = [f"{a}/{t}" for a in METHODS for t in TASKS]
    tuned = tune(evaluate, names, {"lr": list(config.lr_grid)}, fixed={"steps": config.steps})
    rows = [r for t in tuned.values() for r in t.rows()]
    return {n: float(t.best["lr"]) for n, t in tuned.items()}, cache, rows


def _model_record(config: Config, rep: Replication, run: ModelRun, task: str, device: str) -> dict[str, Any]:
    recs = layerwise_scores(run.features, rep.brain, pca=config.pca)
    label_task = "action" if task == "untrained" else task
    out: dict[str, Any] = {
        "dev_accuracy": accuracy(run.model, rep.dev.video, _labels(rep.dev, label_task), device=device),
        "loso": {}, "in_sample": {}, "profile": {}, "depth": sorted({r.relative_depth for r in recs}),
    }  # fmt: skip
    for roi in ROIS:
        out["loso"][roi] = best_layer(recs, roi).score
        ins = best_layer(recs, roi, selection="in-sample")
        out["in_sample"][roi] = ins.score
        out.setdefault("best_layer", {})[roi] = ins.layers[0]
        out["profile"][roi] = [r.mean for r in recs if r.roi == roi]
    return out


def run_seed(config: Config, s: int, lrs: dict[str, float], cache: dict, device: str) -> dict[str, Any]:
    """Every number of one replication (ceilings, baselines, each model's scores)."""
    rep = replication(config, s)
    ceil = {roi: noise_ceiling(rep.brain[roi]) for roi in ROIS}
    hand = hand_crafted_rdms(rep.stimuli.video, rep.stimuli.action, rep.stimuli.shape)
    hand_scores = {n: {roi: rsa_score(d, rep.brain[roi]).mean for roi in ROIS} for n, d in hand.items()}
    hand_p = {
        n: permutation_test(d, rep.brain[MATCH[n]], n_perm=config.n_perm, seed=s).p for n, d in hand.items()
    }
    models: dict[str, Any] = {}
    feats: dict[str, dict[str, np.ndarray]] = {}
    for arch in METHODS if config.models else ():
        for task in (*TASKS, "untrained"):
            lr = lrs.get(f"{arch}/{task}", config.lr_grid[0])
            run = cache.pop((arch, task, lr), None) or _train(config, rep, arch, task, lr, s, device)
            models[f"{arch}/{task}"] = _model_record(config, rep, run, task, device)
            feats[f"{arch}/{task}"] = run.features
    best_p = {}
    for roi in (
        ROIS if config.models else ()
    ):  # the best model (in-sample, the official reading) of each ROI and its permutation p
        name = max(models, key=lambda m: models[m]["in_sample"][roi])
        layer = models[name]["best_layer"][roi]
        d = rdm(feats[name][layer], pca=config.pca)
        best_p[roi] = {"model": name, "layer": layer,
                       "p": permutation_test(d, rep.brain[roi], n_perm=config.n_perm, seed=s).p}  # fmt: skip
    return {"seed": s, "noise": rep.noise, "ceilings": ceil, "hand": hand_scores, "hand_p": hand_p,
            "models": models, "best_p": best_p}  # fmt: skip


def run(config: Config, *, seed: int = 0, device: str = "cpu") -> Report:
    seed = check_seed(seed)
    seeds = tuple(range(seed, seed + config.n_seeds))
    first = replication(config, seeds[0])
    if config.models and len(config.lr_grid) > 1:
        lrs, cache, tuning = choose_lrs(config, first, seeds[0], device)
    else:
        lrs, cache, tuning = {}, {}, []
    records = [
        run_seed(config, s, lrs, cache if s == seeds[0] else {}, device) for s in track(seeds, desc="seeds")
    ]
    cl, summary = claims(records, config, seeds)
    what = (
        (
            f"Models: {', '.join(METHODS)}, each trained on action and on object labels "
            f"({config.n_train} clips, "
            f"{config.steps} Adam steps, batch {config.batch_size}, lr from {list(config.lr_grid)} on a "
            f"{config.n_dev}-clip dev split) plus an untrained copy; seeds {list(seeds)}."
        )
        if config.models
        else (f"Hand-crafted RDMs only (no model training: the spec's quick mode); seeds {list(seeds)}.")
    )
    notes = [
        f"Synthetic benchmark: {config.n_stimuli} stimulus clips ({config.frames} frames, {config.size} x "
        f"{config.size}, 3 channels), {config.n_subjects} synthetic subjects x {len(ROIS)} ROIs x "
        f"{config.voxels} voxels, noise set per ROI for an upper noise ceiling of {config.target_ceiling}.",
        what,
        "Brain scores are LOSO best-layer scores (layer chosen on the other subjects); in-sample maxima "
        f"(the official reading) are in the tables; {config.n_perm} permutations.",
    ]
    metrics = {"seeds": list(seeds), "records": records, "learning_rates": lrs, "tuning": tuning,
               "summary": summary}  # fmt: skip
    return Report(metrics=metrics, claims=cl, tables=tables(records, tuning), notes=notes)
