"""The BMD loader on small files written in the official layout."""

from __future__ import annotations

import os
import pickle
import re

import numpy as np
import pytest
from video_brain_rsa.bmd import BMDFileError, bmd_rdms, load_bmd, read_roi_file
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
    with pytest.raises(pickle.UnpicklingError, match="numpy arrays only"):  # BMDFileError subclasses it
        load_bmd(tmp_path)
    with pytest.raises(ValueError, match="split"):
        read_roi_file(tmp_path / "sub-01" / "sub-01_roi-V1_x.pkl", "val")


class _Call:
    """Pickles as a call of ``fn(*args)``: what a hostile file would contain."""

    def __init__(self, fn, *args):
        self.fn, self.args = fn, args

    def __reduce__(self):
        return self.fn, self.args


def _shell(shape):  # numpy's own reconstructor, asked for a large empty shell
    return _Call(np.ndarray.__reduce__(np.zeros(1))[0], np.ndarray, shape, b"b")


_GOOD = pickle.dumps({"test_data_allvoxel": np.zeros((3, 2, 2))})
HOSTILE = {
    "os.system": (
        pickle.dumps({"test_data_allvoxel": _Call(os.system, "echo pwned")}),
        "system: BMD files hold",
    ),
    "eval": (pickle.dumps({"test_data_allvoxel": _Call(eval, "1 + 1")}), "builtins.eval"),
    "object array with a callable": (
        pickle.dumps({"test_data_allvoxel": np.array([print, 1.0], dtype=object)}),
        "builtins.print",
    ),
    "object array of floats": (
        pickle.dumps({"test_data_allvoxel": np.ones((2, 1, 1), dtype=object)}),
        "real numeric numpy array, got object",
    ),
    "huge declared shell": (
        pickle.dumps({"test_data_allvoxel": _shell((10**6,))}),
        "declared shape (1000000,)",
    ),
    "truncated": (_GOOD[:-20], "truncated"),
    "empty file": (b"", "not a readable BMD pickle"),
    "not a pickle": (b"hello", "not a readable BMD pickle"),
    "not a dict": (pickle.dumps([np.zeros(3)]), "expected a dict"),
    "string value": (pickle.dumps({"test_data_allvoxel": "abc"}), "got str"),
    "complex value": (pickle.dumps({"test_data_allvoxel": np.zeros((3, 2, 2), complex)}), "complex128"),
    "no repetitions": (pickle.dumps({"test_data_allvoxel": np.zeros((3, 0, 2))}), "all >= 1"),
    "2-D": (pickle.dumps({"test_data_allvoxel": np.zeros((3, 2))}), "(videos, repetitions, voxels)"),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_files_are_refused_without_running_anything(tmp_path, name, capfd):
    content, fragment = HOSTILE[name]
    path = tmp_path / "sub-01_roi-V1_x.pkl"
    path.write_bytes(content)
    with pytest.raises(BMDFileError, match=re.escape(fragment)) as err:
        read_roi_file(path)
    assert str(path) in str(err.value) and isinstance(err.value, ValueError)
    assert "pwned" not in capfd.readouterr().out


class _Lying:
    """An array whose pickled state declares a (10^6, 10^6, 10) shape over 8 stored values."""

    def __reduce__(self):
        fn, args, state = np.zeros((2, 2, 2)).__reduce__()
        return fn, args, (state[0], (10**6, 10**6, 10), *state[2:])


def test_declared_shape_that_does_not_match_the_data_is_refused(tmp_path):
    path = tmp_path / "f.pkl"
    path.write_bytes(pickle.dumps({"test_data_allvoxel": _Lying()}))
    with pytest.raises(BMDFileError, match="not a readable BMD pickle"):
        read_roi_file(path)
