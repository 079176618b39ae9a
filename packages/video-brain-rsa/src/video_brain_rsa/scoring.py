"""Per-layer, per-ROI scoring, layer selection without double dipping, and hand-crafted baseline RDMs.

The paper's brain score of a model for an ROI is the maximum over layers of the subject-mean RSA score
(official ``get_max_corr_layer_df``) on the same 102 stimuli and subjects that scored the layers: the
maximum is chosen and reported on one sample (double dipping; its bias grows with the number of layers).
:func:`best_layer` offers it as ``selection="in-sample"`` and, as the default, ``selection="loso"``: for
each subject, the layer is chosen on the other subjects' mean score and that subject is scored at it;
the reported score is the mean of those held-out scores (so a layer never scores the subject it was
picked on). ``relative_depth`` maps layer ``k`` of ``L`` to ``k / (L - 1)`` (the paper's layer profiles).

Hand-crafted RDMs (the spec's cheap non-network baselines): ``pixels`` (the mean frame, correlation
distance), ``motion-energy`` (frame-difference energy per frame pair, euclidean), and the label RDMs
``label-action`` / ``label-object`` (0 same, 1 different).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from paperkit import check_array, check_choice, check_instance

from video_brain_rsa.dissimilarity import rdm
from video_brain_rsa.rsa import rsa_score, stack_checked

__all__ = ["SELECTIONS", "BestLayer", "LayerScore", "best_layer", "hand_crafted_rdms", "layerwise_scores"]

SELECTIONS = ("loso", "in-sample")


@dataclass(frozen=True)
class LayerScore:
    """One (layer, ROI) RSA score: subject-mean ``mean``, ``sem``, ``per_subject`` ``(N,)``."""

    layer: str
    index: int
    relative_depth: float
    roi: str
    mean: float
    sem: float
    per_subject: np.ndarray


@dataclass(frozen=True)
class BestLayer:
    """A model's brain score for one ROI: ``score`` and the held-out ``per_subject`` scores and layers."""

    roi: str
    score: float
    per_subject: np.ndarray
    layers: tuple[str, ...]
    selection: str


def layerwise_scores(
    layers: Mapping[str, np.ndarray],
    brain_rdms: Mapping[str, np.ndarray],
    *,
    pca: int | None = 100,
    method: str = "spearman",
) -> list[LayerScore]:
    """Score every layer against every ROI.

    ``layers``: ``{layer: (S, F) features}`` in input-to-output order, or ``{layer: (S, S) RDM}`` (used
    as is when square with a zero diagonal and ``pca`` is None). ``brain_rdms``: ``{roi: (N, S, S)}``.
    """
    check_instance(layers, "layers", Mapping)
    check_instance(brain_rdms, "brain_rdms", Mapping)
    if not layers:
        raise ValueError("layers must hold at least one layer")
    if not brain_rdms:
        raise ValueError("brain_rdms must hold at least one ROI")
    rois = {roi: stack_checked(b, f"brain_rdms[{roi!r}]") for roi, b in brain_rdms.items()}
    n_layers = len(layers)
    out = []
    for k, (name, f) in enumerate(layers.items()):
        arr = np.asarray(check_array(f, f"layers[{name!r}]"))
        is_rdm = pca is None and arr.ndim == 2 and arr.shape[0] == arr.shape[1] and not np.any(np.diag(arr))
        d = arr if is_rdm else rdm(arr, pca=pca)
        depth = k / (n_layers - 1) if n_layers > 1 else 1.0
        for roi, b in rois.items():
            sc = rsa_score(d, b, method=method)
            out.append(LayerScore(name, k, depth, roi, sc.mean, sc.sem, sc.per_subject))
    return out


def best_layer(records: list[LayerScore], roi: str, *, selection: str = "loso") -> BestLayer:
    """The brain score of one ROI from :func:`layerwise_scores` records (module docstring)."""
    selection = check_choice(selection, "selection", SELECTIONS)
    check_instance(roi, "roi", str)
    if isinstance(records, LayerScore) or not isinstance(records, list | tuple):
        raise TypeError(
            f"records must be a list of LayerScore (layerwise_scores), got {type(records).__name__}"
        )
    if not records:
        raise ValueError("records must hold at least one LayerScore (layerwise_scores), got none")
    for i, r in enumerate(records):
        check_instance(r, f"records[{i}]", LayerScore)
    rows = [r for r in records if r.roi == roi]
    if not rows:
        raise ValueError(f"roi {roi!r} has no records; have {sorted({r.roi for r in records})}")
    per = np.stack([r.per_subject for r in rows])  # (layers, N)
    names = [r.layer for r in rows]
    if selection == "in-sample" or per.shape[1] < 2:
        k = int(np.argmax(per.mean(axis=1)))
        return BestLayer(roi, float(per[k].mean()), per[k], (names[k],), "in-sample")
    n = per.shape[1]
    others = (per.sum(axis=1, keepdims=True) - per) / (n - 1)  # (layers, N): mean of the other subjects
    pick = np.argmax(others, axis=0)
    held = per[pick, np.arange(n)]
    return BestLayer(roi, float(held.mean()), held, tuple(names[k] for k in pick), "loso")


def hand_crafted_rdms(video: np.ndarray, action: np.ndarray, shape: np.ndarray) -> dict[str, np.ndarray]:
    """``{name: (S, S)}`` baseline RDMs of clips ``video`` ``(S, T, C, H, W)`` with their labels ``(S,)``."""
    v = np.asarray(check_array(video, "video", ndim=5), dtype=np.float64)
    if v.shape[1] < 2:
        raise ValueError(f"video must hold >= 2 frames for motion energy, got shape {v.shape}")
    s = v.shape[0]
    a = np.asarray(check_array(action, "action", shape=(s,), kind="iu"))
    o = np.asarray(check_array(shape, "shape", shape=(s,), kind="iu"))
    energy = np.mean(np.diff(v, axis=1) ** 2, axis=(2, 3, 4))
    return {
        "pixels": rdm(v.mean(axis=1).reshape(s, -1), pca=None),
        "motion-energy": rdm(energy, "euclidean", pca=None),
        "label-action": (a[:, None] != a[None, :]).astype(np.float64),
        "label-object": (o[:, None] != o[None, :]).astype(np.float64),
    }
