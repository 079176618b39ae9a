"""scikit-learn's bundled 8x8 digits as image tensors (offline): native 8x8 or upsampled 16x16, seeded splits.

``load_digits(size, seed=s, normalize="standardize", flatten=True)`` reproduces disk-dp's
``disk_dp.data.load("digits", seed=s)`` exactly (same stratified split, same training-set standardisation);
``validation=True`` likewise reproduces its 90/10 split of the training part (split seed ``seed + 1``).

Pixels: the raw data are integers 0..16; ``normalize="unit"`` maps them to [0, 1] (x / 16),
``"standardize"`` to per-feature z-scores of the raw 0..16 values with the training split's mean and
standard deviation (a feature constant on the training split is only centred, on the raw scale).
Upsampling to 16x16 is bilinear (``align_corners=False``) on the [0, 1] image, before normalisation.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from paperkit.validation import check_array, check_bool, check_choice, check_number, check_seed
from paperkit.vision.common import as_device

__all__ = ["DIGIT_SIZES", "NORMALIZATIONS", "ImageSplit", "digits_arrays", "load_digits", "stratified_split"]

DIGIT_SIZES = (8, 16)
NORMALIZATIONS = ("unit", "standardize")


@dataclass(frozen=True)
class ImageSplit:
    """A train/test classification split.

    Attributes:
        x_train: ``(n, 1, s, s)`` float32 images, or ``(n, s*s)`` when loaded with ``flatten=True``.
        y_train: ``(n,)`` int64 labels in ``0..n_classes-1``.
        x_test, y_test: the held-out part, same layout.
        n_classes: 10 for digits.
        name: e.g. ``"digits8"``.
    """

    x_train: torch.Tensor
    y_train: torch.Tensor
    x_test: torch.Tensor
    y_test: torch.Tensor
    n_classes: int
    name: str

    @property
    def n(self) -> int:
        return int(self.x_train.shape[0])

    @property
    def shape(self) -> tuple[int, ...]:
        """The shape of one input (``(1, s, s)`` or ``(s*s,)``)."""
        return tuple(self.x_train.shape[1:])


def stratified_split(labels: np.ndarray, fraction: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Sorted index arrays ``(kept, held_out)``: ``round(fraction * n_c)`` of each class ``c`` held out.

    Per class, in increasing label order, one ``numpy.random.default_rng(seed)`` permutes that class's indices
    and the first ``round(fraction * n_c)`` are held out (the algorithm disk-dp's split uses).
    """
    labels = np.asarray(check_array(labels, "labels", ndim=1, kind="iu"))
    if labels.size == 0:
        raise ValueError("labels must hold at least one label, got none")
    fraction = check_number(fraction, "fraction", low=0.0, high=1.0, low_open=True, high_open=True)
    rng = np.random.default_rng(check_seed(seed))
    kept, held = [], []
    for c in np.unique(labels):
        idx = rng.permutation(np.flatnonzero(labels == c))
        k = round(fraction * len(idx))
        held.append(idx[:k])
        kept.append(idx[k:])
    return np.sort(np.concatenate(kept)), np.sort(np.concatenate(held))


def _digits_table() -> np.ndarray:
    """scikit-learn's ``digits.csv.gz`` (1797 rows: 64 pixels 0..16, then the label), read without importing
    scikit-learn (its import costs seconds per process); through ``sklearn.datasets.load_digits`` if the
    file is not where scikit-learn keeps it."""
    spec = importlib.util.find_spec("sklearn")
    if spec is not None and spec.submodule_search_locations:
        path = Path(next(iter(spec.submodule_search_locations))) / "datasets" / "data" / "digits.csv.gz"
        if path.is_file():
            return np.loadtxt(path, delimiter=",", dtype=np.float64)
    from sklearn.datasets import load_digits as sk_load_digits

    bunch = sk_load_digits()
    return np.column_stack([bunch.data, bunch.target]).astype(np.float64)


def digits_arrays(size: int = 8) -> tuple[np.ndarray, np.ndarray]:
    """All 1 797 digits as ``(1797, size, size)`` float32 in [0, 1] and ``(1797,)`` int64 labels."""
    size = check_choice(size, "size", DIGIT_SIZES)
    raw = _digits_table()
    x = raw[:, :-1].reshape(-1, 8, 8).astype(np.float32) / 16.0
    if size != 8:
        t = torch.nn.functional.interpolate(
            torch.from_numpy(x)[:, None], size=(size, size), mode="bilinear", align_corners=False
        )
        x = t[:, 0].numpy()
    return x, raw[:, -1].astype(np.int64)


def load_digits(
    size: int = 8,
    *,
    seed: int = 0,
    test_fraction: float = 0.2,
    validation: bool = False,
    normalize: str = "unit",
    flatten: bool = False,
    device: str | torch.device = "cpu",
) -> ImageSplit:
    """The digits as a stratified split on ``device``.

    Args:
        size: 8 (native) or 16 (bilinear upsampling).
        seed: the split seed (the test split; the validation split uses ``seed + 1``).
        test_fraction: fraction of each class held out as the test set.
        validation: return (90% of the training part, the other 10%) as (train, test), for tuning
            without touching the test set.
        normalize: ``"unit"`` (pixels in [0, 1]) or ``"standardize"`` (training-split z-scores).
        flatten: ``(n, size*size)`` vectors instead of ``(n, 1, size, size)`` images.
    """
    normalize = check_choice(normalize, "normalize", NORMALIZATIONS)
    validation, flatten = check_bool(validation, "validation"), check_bool(flatten, "flatten")
    seed = check_seed(seed)
    test_fraction = check_number(
        test_fraction, "test_fraction", low=0.0, high=1.0, low_open=True, high_open=True
    )
    dev = as_device(device)
    images, y = digits_arrays(size)
    x = images.reshape(len(y), -1).astype(np.float64)
    tr, te = stratified_split(y, test_fraction, seed)
    if validation:
        tr2, va = stratified_split(y[tr], 0.1, seed + 1)
        tr, te = tr[tr2], tr[va]
    if normalize == "standardize":
        x = x * 16.0  # back to the raw 0..16 scale (exact): a feature constant on train is only centred
        mean, std = x[tr].mean(0), x[tr].std(0)
        std[std == 0] = 1.0
        x = (x - mean) / std
    shape = (-1, size * size) if flatten else (-1, 1, size, size)

    def t(a: np.ndarray, dtype: torch.dtype) -> torch.Tensor:
        return torch.as_tensor(a, dtype=dtype, device=dev)

    return ImageSplit(
        t(x[tr].reshape(shape), torch.float32),
        t(y[tr], torch.int64),
        t(x[te].reshape(shape), torch.float32),
        t(y[te], torch.int64),
        10,
        f"digits{size}",
    )
