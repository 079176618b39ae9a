"""A loader for the BOLD Moments Dataset (BMD) ROI files, in the layout the official code reads.

Layout (official ``BMDReader``; derivatives version B after the repository's two merge scripts)::

    <root>/sub-01/sub-01_roi-<ROI>_betas_normalized.pkl     ... sub-10

Each pickle holds a dict with ``"train_data_allvoxel"`` ``(1000, 3, V)`` and ``"test_data_allvoxel"``
``(102, 10, V)`` (videos, repetitions, voxels). RSA uses the test split, averaged over repetitions (axis 1),
then ``1 - corrcoef`` over voxels (official ``raw2rdm``). The ROI name is the text between ``roi-`` and the
next ``_`` of the file name, as the official reader parses it.

Pickles can run code when loaded: these are read with an unpickler that admits only numpy arrays and
plain containers, so a file that is not a plain array dict is refused (``BMDFileError``, a ValueError)
instead of executed; so are object arrays, empty shells declared larger than numpy writes them, and
truncated or corrupt files. Files are
local; nothing is downloaded.
"""

from __future__ import annotations

import pickle
import re
import warnings
from os import PathLike
from pathlib import Path
from typing import Any

import numpy as np
from paperkit import check_array, check_choice, check_instance, check_strings

from video_brain_rsa.dissimilarity import rdm

__all__ = ["ROI_GROUPS", "BMDFileError", "bmd_rdms", "load_bmd", "read_roi_file"]

# repralign/datasets/constants/bmd.py
ROI_GROUPS = {
    "early": ("V1", "V2", "V3v", "V3d"),
    "ventral-occipital": ("hV4", "OFA", "LOC", "FFA", "PPA"),
    "dorsal": ("V3ab", "IPS0", "IPS1", "RSC"),
    "lateral": ("EBA", "TOS", "MT", "STS"),
}
_ALLOWED = {
    ("numpy", "ndarray"), ("numpy", "dtype"), ("numpy.core.multiarray", "_reconstruct"),
    ("numpy._core.multiarray", "_reconstruct"), ("numpy.core.multiarray", "scalar"),
    ("numpy._core.multiarray", "scalar"), ("builtins", "dict"), ("builtins", "list"), ("builtins", "tuple"),
    ("collections", "OrderedDict"),
}  # fmt: skip
_FILE = re.compile(r"^sub-(\d+)_roi-([^_]+)_.*\.pkl$")


class BMDFileError(pickle.UnpicklingError, ValueError):
    """A BMD file that is refused: not a pickle, truncated, or holding more than plain numeric arrays."""


def _reconstruct(subtype: Any, shape: Any, dtype: Any) -> Any:
    # numpy pickles an array as an empty (0,) shell that __setstate__ then fills from the file's own
    # bytes; a shell declared larger would be allocated before any data is read, so it is refused.
    if shape != (0,):
        raise BMDFileError(f"refusing an array shell of declared shape {shape!r}: numpy writes (0,)")
    return np.ndarray.__new__(subtype, shape, dtype)


class _ArrayUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in _ALLOWED:
            raise BMDFileError(f"refusing to load {module}.{name}: BMD files hold numpy arrays only")
        if name == "_reconstruct":
            return _reconstruct
        return super().find_class(module, name)


def _unpickle(path: str | Path) -> Any:
    try:
        with open(path, "rb") as f:
            return _ArrayUnpickler(f).load()
    except BMDFileError as e:
        raise BMDFileError(f"{path}: {e}") from None
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, MemoryError, IndexError) as e:
        # truncated or corrupt streams, and array states whose shape does not match their data
        why = f"{type(e).__name__}: {e or 'too large'}"
        raise BMDFileError(f"{path}: not a readable BMD pickle ({why})") from None


def _split_array(data: dict, key: str, path: str | Path) -> np.ndarray:
    if key not in data:
        raise ValueError(f"{path}: missing {key!r}; has {sorted(map(str, data))}")
    a = data[key]
    if not isinstance(a, np.ndarray) or a.dtype.kind not in "fiu":
        got = a.dtype if isinstance(a, np.ndarray) else type(a).__name__
        raise BMDFileError(f"{path}: {key} must be a real numeric numpy array, got {got}")
    if a.ndim != 3 or 0 in a.shape:
        want = "(videos, repetitions, voxels), all >= 1"
        raise BMDFileError(f"{path}: {key} must be {want}, got shape {a.shape}")
    return a.astype(np.float64).mean(axis=1)


def read_roi_file(path: str | Path, split: str = "test") -> np.ndarray:
    """``(videos, V)`` float64 responses of one subject's ROI file, averaged over repetitions."""
    split = check_choice(split, "split", ("train", "test", "all"))
    check_instance(path, "path", (str, PathLike))
    data = _unpickle(path)
    if not isinstance(data, dict):
        raise BMDFileError(f"{path}: expected a dict of arrays, got {type(data).__name__}")
    keys = ("train", "test") if split == "all" else (split,)
    return np.concatenate([_split_array(data, f"{k}_data_allvoxel", path) for k in keys], axis=0)


def load_bmd(
    root: str | Path, *, split: str = "test", rois: tuple[str, ...] | None = None
) -> dict[str, dict[int, np.ndarray]]:
    """``{roi: {subject: (videos, V)}}`` from ``root`` (module docstring); subjects may differ in V.

    ``rois``: keep only these (a requested ROI found for no subject is an error). A subject missing an
    ROI is left out of that ROI (score over the subjects present).
    """
    split = check_choice(split, "split", ("train", "test", "all"))
    if rois is not None:
        rois = tuple(check_strings(rois, "rois"))
    base = Path(check_instance(root, "root", (str, PathLike)))
    if not base.is_dir():
        raise FileNotFoundError(f"root {str(base)!r} is not a directory")
    out: dict[str, dict[int, np.ndarray]] = {}
    for sub in sorted(base.glob("sub-*")):
        for file in sorted(sub.glob("*.pkl")):
            m = _FILE.match(file.name)
            if m is None or (rois is not None and m.group(2) not in rois):
                continue
            out.setdefault(m.group(2), {})[int(m.group(1))] = read_roi_file(file, split)
    if not out:
        raise FileNotFoundError(f"no sub-XX/sub-XX_roi-<ROI>_*.pkl files under {str(base)!r}")
    missing = sorted(set(rois or ()) - set(out))
    if missing:
        raise ValueError(f"rois {missing} were not found under {str(base)!r}; found {sorted(out)}")
    return out


def bmd_rdms(data: dict[str, dict[int, np.ndarray]]) -> dict[str, np.ndarray]:
    """``{roi: (N, S, S)}`` correlation-distance RDMs per subject (no PCA, as the official brain RDMs).

    Voxels constant over the videos carry no pattern information and are dropped with a warning; an ROI
    with no usable subject is skipped with a warning.
    """
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise TypeError("data must be {roi: {subject: (videos, V) array}}, as load_bmd returns")
    out = {}
    for roi, subjects in data.items():
        mats = []
        for s, x in sorted(subjects.items()):
            x = np.asarray(check_array(x, f"data[{roi!r}][{s!r}]", ndim=2, finite=False), dtype=np.float64)
            keep = np.nanstd(x, axis=0) > 0
            keep &= ~np.isnan(x).any(axis=0)
            if not keep.all():
                warnings.warn(f"ROI {roi}, subject {s}: dropping {int((~keep).sum())} constant or NaN voxels",
                              stacklevel=2)  # fmt: skip
            if keep.sum() < 2:
                continue
            mats.append(rdm(x[:, keep], pca=None))
        if not mats:
            warnings.warn(f"ROI {roi}: no subject with usable voxels; skipped", stacklevel=2)
            continue
        sizes = {m.shape[0] for m in mats}
        if len(sizes) != 1:
            raise ValueError(f"ROI {roi}: subjects have different numbers of videos {sorted(sizes)}")
        out[roi] = np.stack(mats)
    return out
