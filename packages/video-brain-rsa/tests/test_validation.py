"""Bad input at every public entry: the error type and a fragment naming the argument."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import video_brain_rsa as vbr
from video_brain_rsa.data import Clips

pytestmark = pytest.mark.filterwarnings("ignore:pca=.*exceeds:UserWarning")

_RNG = np.random.default_rng(0)
_X = _RNG.standard_normal((6, 5))
R = vbr.rdm(_X, pca=None)  # a valid (6, 6) RDM
B = np.stack([vbr.rdm(_X + _RNG.standard_normal((6, 5)), pca=None) for _ in range(3)])  # (3, 6, 6)
NONSYM = R.copy()
NONSYM[0, 1] += 0.5
NAN_R = R.copy()
NAN_R[0, 1] = NAN_R[1, 0] = np.nan
VIDEO = _RNG.random((6, 4, 3, 5, 5)).astype(np.float32)
LABELS = np.array([0, 1, 2, 0, 1, 2])
CLIPS = Clips(VIDEO, LABELS, LABELS, np.ones(6))
MODEL = vbr.build_model("conv3d", 3, seed=0, width=2)
REC = vbr.layerwise_scores({"a": _X, "b": _X**2}, {"V1": B}, pca=None)
OK_CALL = dict(steps=1, batch_size=2, width=2, seed=0)

CASES = {
    # dissimilarity
    "rdm/features str": (lambda: vbr.rdm("abc"), TypeError, "features"),
    "rdm/features 1-D": (lambda: vbr.rdm(np.zeros(5)), ValueError, "features"),
    "rdm/features empty": (lambda: vbr.rdm(np.zeros((0, 3))), ValueError, "features"),
    "rdm/features NaN": (lambda: vbr.rdm(np.full((6, 3), np.nan)), ValueError, "features"),
    "rdm/features inf": (lambda: vbr.rdm(np.full((6, 3), np.inf)), ValueError, "features"),
    "rdm/3 stimuli": (lambda: vbr.rdm(np.eye(3)), ValueError, "at least 4 stimuli"),
    "rdm/constant row": (lambda: vbr.rdm(np.ones((6, 3)), pca=None), ValueError, "constant"),
    "rdm/metric": (lambda: vbr.rdm(_X, "manhattan"), ValueError, "metric"),
    "rdm/metric type": (lambda: vbr.rdm(_X, ["correlation"]), ValueError, "metric"),
    "rdm/pca 0": (lambda: vbr.rdm(_X, pca=0), ValueError, "pca"),
    "rdm/pca negative": (lambda: vbr.rdm(_X, pca=-3), ValueError, "pca"),
    "rdm/pca bool": (lambda: vbr.rdm(_X, pca=True), TypeError, "pca"),
    "rdm/pca float": (lambda: vbr.rdm(_X, pca=2.5), TypeError, "pca"),
    "rdm/zscore_dim": (lambda: vbr.rdm(_X, zscore_dim=2), ValueError, "zscore_dim"),
    "rdm/zscore_dim bool": (lambda: vbr.rdm(_X, zscore_dim=True), TypeError, "zscore_dim"),
    "upper/str": (lambda: vbr.upper("x"), TypeError, "rdm"),
    "upper/non-square": (lambda: vbr.upper(np.zeros((3, 4))), ValueError, "rdm"),
    "upper/1-D": (lambda: vbr.upper(np.zeros(4)), ValueError, "rdm"),
    "upper/NaN": (lambda: vbr.upper(NAN_R), ValueError, "rdm"),
    "pca_reduce/x 1-D": (lambda: vbr.pca_reduce(np.zeros(4), 2), ValueError, "x"),
    "pca_reduce/n_components 0": (lambda: vbr.pca_reduce(_X, 0), ValueError, "n_components"),
    "pca_reduce/n_components bool": (lambda: vbr.pca_reduce(_X, True), TypeError, "n_components"),
    "pca_reduce/one stimulus": (lambda: vbr.pca_reduce(np.ones((1, 3)), 1), ValueError, "x"),
    # rsa
    "rsa_score/model non-square": (lambda: vbr.rsa_score(np.zeros((6, 5)), B), ValueError, "model_rdm"),
    "rsa_score/model non-symmetric": (
        lambda: vbr.rsa_score(NONSYM, B),
        ValueError,
        "model_rdm must be symmetric",
    ),
    "rsa_score/model NaN": (lambda: vbr.rsa_score(NAN_R, B), ValueError, "model_rdm"),
    "rsa_score/model str": (lambda: vbr.rsa_score("x", B), TypeError, "model_rdm"),
    "rsa_score/model constant": (
        lambda: vbr.rsa_score(np.ones((6, 6)) - np.eye(6), B),
        ValueError,
        "constant",
    ),
    "rsa_score/brain 2-D": (lambda: vbr.rsa_score(R, R), ValueError, "brain_rdms"),
    "rsa_score/brain empty": (lambda: vbr.rsa_score(R, np.zeros((0, 6, 6))), ValueError, "brain_rdms"),
    "rsa_score/brain non-symmetric": (
        lambda: vbr.rsa_score(R, NONSYM[None]),
        ValueError,
        "brain_rdms must be symmetric",
    ),
    "rsa_score/brain NaN": (lambda: vbr.rsa_score(R, NAN_R[None]), ValueError, "brain_rdms"),
    "rsa_score/size mismatch": (lambda: vbr.rsa_score(R, B[:, :5, :5]), ValueError, "same stimuli"),
    "rsa_score/3 stimuli": (lambda: vbr.rsa_score(R[:3, :3], B[:, :3, :3]), ValueError, "at least 4"),
    "rsa_score/method": (lambda: vbr.rsa_score(R, B, method="pearson"), ValueError, "method"),
    "noise_ceiling/one subject": (lambda: vbr.noise_ceiling(B[:1]), ValueError, "at least 2 subjects"),
    "noise_ceiling/2-D": (lambda: vbr.noise_ceiling(R), ValueError, "brain_rdms"),
    "noise_ceiling/non-symmetric": (
        lambda: vbr.noise_ceiling(np.stack([NONSYM, R])),
        ValueError,
        "symmetric",
    ),
    "noise_ceiling/convention": (lambda: vbr.noise_ceiling(B, convention="x"), ValueError, "convention"),
    "noise_ceiling/method": (lambda: vbr.noise_ceiling(B, method=None), ValueError, "method"),
    "permutation_test/n_perm 0": (lambda: vbr.permutation_test(R, B, n_perm=0), ValueError, "n_perm"),
    "permutation_test/n_perm bool": (lambda: vbr.permutation_test(R, B, n_perm=True), TypeError, "n_perm"),
    "permutation_test/n_perm float": (lambda: vbr.permutation_test(R, B, n_perm=10.0), TypeError, "n_perm"),
    "permutation_test/seed negative": (lambda: vbr.permutation_test(R, B, seed=-1), ValueError, "seed"),
    "permutation_test/seed str": (lambda: vbr.permutation_test(R, B, seed="0"), TypeError, "seed"),
    "permutation_test/correction": (
        lambda: vbr.permutation_test(R, B, correction="x"),
        ValueError,
        "correction",
    ),
    "permutation_test/model NaN": (lambda: vbr.permutation_test(NAN_R, B), ValueError, "model_rdm"),
    "compare_models/rdm_b size": (lambda: vbr.compare_models(R, R[:5, :5], B), ValueError, "rdm_b"),
    "compare_models/rdm_a non-symmetric": (lambda: vbr.compare_models(NONSYM, R, B), ValueError, "rdm_a"),
    "compare_models/n_perm 0": (lambda: vbr.compare_models(R, R, B, n_perm=0), ValueError, "n_perm"),
    "kendall_tau_a/x 2-D": (lambda: vbr.kendall_tau_a(R, R), ValueError, "x"),
    "kendall_tau_a/y length": (lambda: vbr.kendall_tau_a(np.arange(4.0), np.arange(5.0)), ValueError, "y"),
    "kendall_tau_a/empty": (lambda: vbr.kendall_tau_a(np.zeros(0), np.zeros(0)), ValueError, "at least 2"),
    "kendall_tau_a/NaN": (lambda: vbr.kendall_tau_a(np.array([1.0, np.nan]), np.ones(2)), ValueError, "x"),
    "kendall_tau_a/chunk 0": (
        lambda: vbr.kendall_tau_a(np.arange(4.0), np.arange(4.0), chunk=0),
        ValueError,
        "chunk",
    ),
    "average_ranks/empty": (lambda: vbr.average_ranks(np.zeros(0)), ValueError, "v"),
    "average_ranks/NaN": (lambda: vbr.average_ranks(np.array([1.0, np.nan])), ValueError, "v"),
    "average_ranks/str": (lambda: vbr.average_ranks("ab"), TypeError, "v"),
    # scoring
    "layerwise_scores/layers not a mapping": (
        lambda: vbr.layerwise_scores([_X], {"V1": B}),
        TypeError,
        "layers",
    ),
    "layerwise_scores/layers empty": (lambda: vbr.layerwise_scores({}, {"V1": B}), ValueError, "layers"),
    "layerwise_scores/layer NaN": (
        lambda: vbr.layerwise_scores({"a": np.full((6, 3), np.nan)}, {"V1": B}),
        ValueError,
        "layers['a']",
    ),
    "layerwise_scores/layer rows": (
        lambda: vbr.layerwise_scores({"a": _X[:5]}, {"V1": B}, pca=None),
        ValueError,
        "same stimuli",
    ),
    "layerwise_scores/brain not a mapping": (
        lambda: vbr.layerwise_scores({"a": _X}, B),
        TypeError,
        "brain_rdms",
    ),
    "layerwise_scores/brain empty": (lambda: vbr.layerwise_scores({"a": _X}, {}), ValueError, "brain_rdms"),
    "layerwise_scores/brain 2-D": (
        lambda: vbr.layerwise_scores({"a": _X}, {"V1": R}),
        ValueError,
        "brain_rdms['V1']",
    ),
    "layerwise_scores/pca 0": (lambda: vbr.layerwise_scores({"a": _X}, {"V1": B}, pca=0), ValueError, "pca"),
    "layerwise_scores/method": (
        lambda: vbr.layerwise_scores({"a": _X}, {"V1": B}, method="x"),
        ValueError,
        "method",
    ),
    "best_layer/records empty": (lambda: vbr.best_layer([], "V1"), ValueError, "records"),
    "best_layer/records type": (lambda: vbr.best_layer([1, 2], "V1"), TypeError, "records"),
    "best_layer/records not a list": (lambda: vbr.best_layer(REC[0], "V1"), TypeError, "records"),
    "best_layer/roi unknown": (lambda: vbr.best_layer(REC, "MT"), ValueError, "roi"),
    "best_layer/roi type": (lambda: vbr.best_layer(REC, 1), TypeError, "roi"),
    "best_layer/selection": (lambda: vbr.best_layer(REC, "V1", selection="x"), ValueError, "selection"),
    "hand_crafted_rdms/video 4-D": (
        lambda: vbr.hand_crafted_rdms(VIDEO[0], LABELS, LABELS),
        ValueError,
        "video",
    ),
    "hand_crafted_rdms/action length": (
        lambda: vbr.hand_crafted_rdms(VIDEO, LABELS[:5], LABELS),
        ValueError,
        "action",
    ),
    "hand_crafted_rdms/action float": (
        lambda: vbr.hand_crafted_rdms(VIDEO, LABELS * 1.0, LABELS),
        TypeError,
        "action",
    ),
    "hand_crafted_rdms/shape float": (
        lambda: vbr.hand_crafted_rdms(VIDEO, LABELS, LABELS + 0.5),
        TypeError,
        "shape",
    ),
    "hand_crafted_rdms/one frame": (
        lambda: vbr.hand_crafted_rdms(VIDEO[:, :1], LABELS, LABELS),
        ValueError,
        "video",
    ),
    # features
    "extract/model": (lambda: vbr.extract("m", VIDEO, ["conv1"]), TypeError, "model"),
    "extract/clips 4-D": (lambda: vbr.extract(MODEL, VIDEO[0], ["conv1"]), ValueError, "clips"),
    "extract/clips NaN": (
        lambda: vbr.extract(MODEL, np.full_like(VIDEO, np.nan), ["conv1"]),
        ValueError,
        "clips",
    ),
    "extract/clips tensor NaN": (
        lambda: vbr.extract(MODEL, torch.full(VIDEO.shape, float("nan")), ["conv1"]),
        ValueError,
        "clips",
    ),
    "extract/layers unknown": (lambda: vbr.extract(MODEL, VIDEO, ["nope"]), ValueError, "layers"),
    "extract/layers empty": (lambda: vbr.extract(MODEL, VIDEO, []), ValueError, "layers"),
    "extract/layers str": (lambda: vbr.extract(MODEL, VIDEO, "stem"), TypeError, "layers"),
    "extract/mode": (lambda: vbr.extract(MODEL, VIDEO, ["conv1"], mode="x"), ValueError, "mode"),
    "extract/clip_len 0": (lambda: vbr.extract(MODEL, VIDEO, ["conv1"], clip_len=0), ValueError, "clip_len"),
    "extract/interval bool": (
        lambda: vbr.extract(MODEL, VIDEO, ["conv1"], clip_len=2, interval=True),
        TypeError,
        "interval",
    ),
    "extract/aggregate": (
        lambda: vbr.extract(MODEL, VIDEO, ["conv1"], aggregate="x"),
        ValueError,
        "aggregate",
    ),
    "extract/batch_size 0": (
        lambda: vbr.extract(MODEL, VIDEO, ["conv1"], batch_size=0),
        ValueError,
        "batch_size",
    ),
    "extract/device": (lambda: vbr.extract(MODEL, VIDEO, ["conv1"], device="nodevice"), ValueError, "device"),
    "sample_clips/video 1-D": (lambda: vbr.sample_clips(np.zeros(4), 2), ValueError, "video"),
    "sample_clips/clip_len 0": (lambda: vbr.sample_clips(VIDEO, 0), ValueError, "clip_len"),
    "sample_clips/clip_len bool": (lambda: vbr.sample_clips(VIDEO, True), TypeError, "clip_len"),
    "sample_clips/interval -1": (lambda: vbr.sample_clips(VIDEO, 2, -1), ValueError, "interval"),
    # bmd
    "load_bmd/root type": (lambda: vbr.load_bmd(5), TypeError, "root"),
    "load_bmd/split": (lambda: vbr.load_bmd(".", split="val"), ValueError, "split"),
    "load_bmd/rois str": (lambda: vbr.load_bmd(".", rois="V1"), TypeError, "rois"),
    "bmd_rdms/data type": (lambda: vbr.bmd_rdms([1]), TypeError, "data"),
    "bmd_rdms/array str": (lambda: vbr.bmd_rdms({"V1": {1: "abc"}}), TypeError, "data['V1'][1]"),
    "bmd_rdms/array 1-D": (lambda: vbr.bmd_rdms({"V1": {1: np.zeros(5)}}), ValueError, "data['V1'][1]"),
    "bmd_rdms/3 videos": (lambda: vbr.bmd_rdms({"V1": {1: _X[:3]}}), ValueError, "at least 4"),
    "read_roi_file/path type": (lambda: vbr.read_roi_file(3.5), TypeError, "path"),
    "read_roi_file/split": (lambda: vbr.read_roi_file("x.pkl", "val"), ValueError, "split"),
    # data
    "render_clips/n 0": (lambda: vbr.render_clips(0, seed=0), ValueError, "n"),
    "render_clips/n bool": (lambda: vbr.render_clips(True, seed=0), TypeError, "n"),
    "render_clips/seed float": (lambda: vbr.render_clips(4, seed=0.5), TypeError, "seed"),
    "render_clips/frames 1": (lambda: vbr.render_clips(4, seed=0, frames=1), ValueError, "frames"),
    "render_clips/size 0": (lambda: vbr.render_clips(4, seed=0, size=0), ValueError, "size"),
    "render_clips/chunk 0": (lambda: vbr.render_clips(4, seed=0, chunk=0), ValueError, "chunk"),
    "make_subjects/clips": (lambda: vbr.make_subjects(VIDEO, noise={"V1": 1.0}, seed=0), TypeError, "clips"),
    "make_subjects/noise type": (lambda: vbr.make_subjects(CLIPS, noise=1.0, seed=0), TypeError, "noise"),
    "make_subjects/noise roi": (
        lambda: vbr.make_subjects(CLIPS, noise={"V9": 1.0}, seed=0),
        ValueError,
        "noise",
    ),
    "make_subjects/noise NaN": (
        lambda: vbr.make_subjects(CLIPS, noise={"V1": np.nan}, seed=0),
        ValueError,
        "noise['V1']",
    ),
    "make_subjects/noise negative": (
        lambda: vbr.make_subjects(CLIPS, noise={"V1": -1.0}, seed=0),
        ValueError,
        "noise['V1']",
    ),
    "make_subjects/n_subjects 0": (
        lambda: vbr.make_subjects(CLIPS, noise={"V1": 1.0}, n_subjects=0, seed=0),
        ValueError,
        "n_subjects",
    ),
    "make_subjects/voxels bool": (
        lambda: vbr.make_subjects(CLIPS, noise={"V1": 1.0}, voxels=True, seed=0),
        TypeError,
        "voxels",
    ),
    "ground_truth/clips": (lambda: vbr.ground_truth({"video": VIDEO}), TypeError, "clips"),
    "ground_truth/action out of range": (
        lambda: vbr.ground_truth(Clips(VIDEO, LABELS + 9, LABELS, np.ones(6))),
        ValueError,
        "clips.action",
    ),
    "ground_truth/shape length": (
        lambda: vbr.ground_truth(Clips(VIDEO, LABELS, LABELS[:4], np.ones(6))),
        ValueError,
        "clips.shape",
    ),
    "ground_truth/video NaN": (
        lambda: vbr.ground_truth(Clips(np.full_like(VIDEO, np.nan), LABELS, LABELS, np.ones(6))),
        ValueError,
        "clips.video",
    ),
    "motion_energy/video 4-D": (lambda: vbr.motion_energy(VIDEO[0]), ValueError, "video"),
    "motion_energy/NaN": (lambda: vbr.motion_energy(np.full_like(VIDEO, np.nan)), ValueError, "video"),
    "motion_energy/one frame": (lambda: vbr.motion_energy(VIDEO[:, :1]), ValueError, "video"),
    "noise_for_ceiling/roi": (lambda: vbr.noise_for_ceiling(CLIPS, "V9", seed=0), ValueError, "roi"),
    "noise_for_ceiling/clips": (lambda: vbr.noise_for_ceiling(VIDEO, "V1", seed=0), TypeError, "clips"),
    "noise_for_ceiling/target 1": (
        lambda: vbr.noise_for_ceiling(CLIPS, "V1", target=1.0, seed=0),
        ValueError,
        "target",
    ),
    "noise_for_ceiling/target NaN": (
        lambda: vbr.noise_for_ceiling(CLIPS, "V1", target=np.nan, seed=0),
        ValueError,
        "target",
    ),
    "noise_for_ceiling/iters 0": (
        lambda: vbr.noise_for_ceiling(CLIPS, "V1", iters=0, seed=0),
        ValueError,
        "iters",
    ),
    "noise_for_ceiling/n_subjects 1": (
        lambda: vbr.noise_for_ceiling(CLIPS, "V1", n_subjects=1, seed=0),
        ValueError,
        "n_subjects",
    ),
    "noise_for_ceiling/voxels 0": (
        lambda: vbr.noise_for_ceiling(CLIPS, "V1", voxels=0, seed=0),
        ValueError,
        "voxels",
    ),
    # models, training, methods
    "build_model/arch": (lambda: vbr.build_model("resnet", 3, seed=0), ValueError, "arch"),
    "build_model/arch type": (lambda: vbr.build_model(["conv3d"], 3, seed=0), ValueError, "arch"),
    "build_model/classes 1": (lambda: vbr.build_model("conv3d", 1, seed=0), ValueError, "classes"),
    "build_model/classes bool": (lambda: vbr.build_model("conv3d", True, seed=0), TypeError, "classes"),
    "build_model/width 0": (lambda: vbr.build_model("conv3d", 3, seed=0, width=0), ValueError, "width"),
    "build_model/seed": (lambda: vbr.build_model("conv3d", 3, seed=None), TypeError, "seed"),
    "build_model/device": (
        lambda: vbr.build_model("conv3d", 3, seed=0, device="nodevice"),
        ValueError,
        "device",
    ),
    "train/model": (lambda: vbr.train("m", VIDEO, LABELS, steps=1, seed=0), TypeError, "model"),
    "train/clips 4-D": (lambda: vbr.train(MODEL, VIDEO[0], LABELS, steps=1, seed=0), ValueError, "clips"),
    "train/labels float": (
        lambda: vbr.train(MODEL, VIDEO, LABELS * 1.0, steps=1, seed=0),
        TypeError,
        "labels",
    ),
    "train/labels length": (
        lambda: vbr.train(MODEL, VIDEO, LABELS[:5], steps=1, seed=0),
        ValueError,
        "labels",
    ),
    "train/labels out of range": (
        lambda: vbr.train(MODEL, VIDEO, LABELS + 5, steps=1, seed=0),
        ValueError,
        "labels",
    ),
    "train/steps -1": (lambda: vbr.train(MODEL, VIDEO, LABELS, steps=-1, seed=0), ValueError, "steps"),
    "train/lr 0": (lambda: vbr.train(MODEL, VIDEO, LABELS, steps=1, lr=0.0, seed=0), ValueError, "lr"),
    "train/lr NaN": (lambda: vbr.train(MODEL, VIDEO, LABELS, steps=1, lr=np.nan, seed=0), ValueError, "lr"),
    "train/batch_size 0": (
        lambda: vbr.train(MODEL, VIDEO, LABELS, steps=1, batch_size=0, seed=0),
        ValueError,
        "batch_size",
    ),
    "train/seed bool": (lambda: vbr.train(MODEL, VIDEO, LABELS, steps=1, seed=True), TypeError, "seed"),
    "accuracy/model": (lambda: vbr.accuracy(None, VIDEO, LABELS), TypeError, "model"),
    "accuracy/labels length": (lambda: vbr.accuracy(MODEL, VIDEO, LABELS[:5]), ValueError, "labels"),
    "accuracy/labels 2-D": (lambda: vbr.accuracy(MODEL, VIDEO, LABELS[None]), ValueError, "labels"),
    "accuracy/clips NaN": (
        lambda: vbr.accuracy(MODEL, np.full_like(VIDEO, np.nan), LABELS),
        ValueError,
        "clips",
    ),
    "run_method/name": (
        lambda: vbr.run_method("resnet", VIDEO, LABELS, VIDEO, **OK_CALL),
        ValueError,
        "name",
    ),
    "run_method/name type": (
        lambda: vbr.run_method(["conv3d"], VIDEO, LABELS, VIDEO, **OK_CALL),
        TypeError,
        "name",
    ),
    "run_method/labels negative": (
        lambda: vbr.run_method("conv3d", VIDEO, -LABELS, VIDEO, **OK_CALL),
        ValueError,
        "train_labels",
    ),
    "run_method/steps bool": (
        lambda: vbr.run_method("conv3d", VIDEO, LABELS, VIDEO, **{**OK_CALL, "steps": True}),
        TypeError,
        "steps",
    ),
    "run_method/seed str": (
        lambda: vbr.run_method("conv3d", VIDEO, LABELS, VIDEO, **{**OK_CALL, "seed": "0"}),
        TypeError,
        "seed",
    ),
    "run_method/stimuli 4-D": (
        lambda: vbr.run_method("conv3d", VIDEO, LABELS, VIDEO[0], **OK_CALL),
        ValueError,
        "stimuli",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_bad_input_is_refused_naming_the_argument(case):
    call, kind, fragment = CASES[case]
    with pytest.raises(kind) as err:
        call()
    assert fragment in str(err.value), f"{case}: {err.value!r}"


def test_every_public_callable_has_a_case():
    data = {"Score", "PermutationResult", "LayerScore", "BestLayer", "Clips", "ModelRun", "BMDFileError"}
    callables = {n for n in vbr.__all__ if callable(getattr(vbr, n))} - data
    covered = {case.split("/")[0] for case in CASES}
    assert callables <= covered, sorted(callables - covered)
