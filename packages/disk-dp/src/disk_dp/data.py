"""The bundled data sets (offline), standardised, as torch tensors on a device.

``digits`` comes from paperkit.vision (the shared digits loader: the same stratified split and training-set
z-scores this package always used, bit for bit); ``breast_cancer`` from scikit-learn's bundled copy.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from paperkit.validation import check_choice
from paperkit.vision import ImageSplit, load_digits, stratified_split

DATASETS = ("digits", "breast_cancer")


@dataclass(frozen=True)
class Dataset(ImageSplit):
    """A flat classification split: paperkit.vision's ``ImageSplit`` with ``(n, d)`` inputs.

    Attributes:
        x_train: (n, d) float32; y_train: (n,) int64; x_test: (m, d) float32; y_test: (m,) int64.
        n_classes: number of classes.
        name: the data set's name.
    """

    @property
    def d(self) -> int:
        return int(self.x_train.shape[1])


def _on(device: str | torch.device, name: str, n_classes: int, *arrays: np.ndarray | torch.Tensor) -> Dataset:
    """A ``Dataset`` of (x_train, y_train, x_test, y_test): float32 inputs, int64 labels, on ``device``."""
    dtypes = (torch.float32, torch.int64, torch.float32, torch.int64)
    xtr, ytr, xte, yte = (
        torch.as_tensor(a, dtype=t, device=device) for a, t in zip(arrays, dtypes, strict=True)
    )
    return Dataset(x_train=xtr, y_train=ytr, x_test=xte, y_test=yte, n_classes=n_classes, name=name)


def load(
    name: str, *, device: str | torch.device = "cpu", validation: bool = False, seed: int = 0
) -> Dataset:
    """Load ``digits`` (1 797 x 64, 10 classes) or ``breast_cancer`` (569 x 30, 2 classes).

    80/20 stratified train/test split (split seed ``seed``); features standardised with the training
    mean/std. ``validation=True`` instead returns 90/10 of the *training* part as (train, test), for
    choosing hyper-parameters without touching the test set.
    """
    check_choice(name, "name", DATASETS)
    if name == "digits":
        split = load_digits(8, seed=seed, validation=validation, normalize="standardize", flatten=True)
        return _on(device, name, split.n_classes, split.x_train, split.y_train, split.x_test, split.y_test)
    from sklearn import datasets  # imported here: only breast_cancer needs scikit-learn

    bunch = datasets.load_breast_cancer()
    x, y = np.asarray(bunch.data, dtype=np.float64), np.asarray(bunch.target, dtype=np.int64)
    tr, te = stratified_split(y, 0.2, seed)
    if validation:
        tr2, va = stratified_split(y[tr], 0.1, seed + 1)
        tr, te = tr[tr2], tr[va]
    mean, std = x[tr].mean(0), x[tr].std(0)
    std[std == 0] = 1.0
    x = (x - mean) / std
    return _on(device, name, int(y.max()) + 1, x[tr], y[tr], x[te], y[te])


__all__ = ["DATASETS", "Dataset", "load"]
