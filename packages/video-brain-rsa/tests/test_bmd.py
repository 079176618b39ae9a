"""The BMD loader on small files written in the official layout."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from video_brain_rsa.bmd import bmd_rdms, load_bmd, read_roi_file
from video_brain_rsa.dissimilarity import rdm


def _write(root, subject, roi, test, train):
    d = root / f"sub-{subject:02d}"
    d.mkdir(exist_ok=True)
    with open(d / f"sub-{subject:02d}_roi-{roi}_betas_normalized.pkl", "wb") as f:
        pickle.dump({"train_data_allvoxel": train, "test_data_allvoxel": test}, f)


def test_loader_averages_repetitions_and_builds_official_rdms(tmp_path):
    rng = np.random.default_rng(0)
    tests = {}
    for s in (1, 2, 3):
        for roi, v in (("V1", 7 + s), ("MT", 5)):
            if s == 3 and roi == "MT":
                continue  # subject 3 lacks MT: scored over the subjects present
            tests[(s, roi)] = rng.standard_normal((6, 10, v))
            _write(tmp_path, s, roi, tests[(s, roi)], rng.standard_normal((4, 3, v)))
    data = load_bmd(tmp_path)
    assert sorted(data) == ["MT", "V1"] and sorted(data["MT"]) == [1, 2]
    np.testing.assert_allclose(data["V1"][2], tests[(2, "V1")].mean(axis=1))
    rdms = bmd_rdms(data)
    assert rdms["V1"].shape == (3, 6, 6) and rdms["MT"].shape == (2, 6, 6)
    official = 1 - np.corrcoef(tests[(1, "V1")].mean(axis=1))  # repralign raw2rdm
    np.testing.assert_allclose(rdms["V1"][0], official, atol=1e-12)
    assert read_roi_file(tmp_path / "sub-01" / "sub-01_roi-V1_betas_normalized.pkl", "all").shape == (10, 8)


def test_constant_voxels_are_dropped_with_a_warning(tmp_path):
    x = np.random.default_rng(1).standard_normal((6, 2, 5))
    x[:, :, 0] = 3.0
    _write(tmp_path, 1, "V1", x, x)
    data = load_bmd(tmp_path)
    with pytest.warns(UserWarning, match="dropping 1 constant"):
        rdms = bmd_rdms(data)
    np.testing.assert_allclose(rdms["V1"][0], rdm(x.mean(axis=1)[:, 1:], pca=None))


def test_bad_files_are_refused(tmp_path):
    with pytest.raises(FileNotFoundError, match="root"):
        load_bmd(tmp_path / "missing")
    with pytest.raises(FileNotFoundError, match="no sub-XX"):
        load_bmd(tmp_path)
    (tmp_path / "sub-01").mkdir()
    with open(tmp_path / "sub-01" / "sub-01_roi-V1_x.pkl", "wb") as f:
        pickle.dump({"test_data_allvoxel": np.zeros((3, 2, 2)), "evil": print}, f)
    with pytest.raises(pickle.UnpicklingError, match="numpy arrays only"):
        load_bmd(tmp_path)
    with pytest.raises(ValueError, match="split"):
        read_roi_file(tmp_path / "sub-01" / "sub-01_roi-V1_x.pkl", "val")
