"""The bundled data sets (offline), standardised, as torch tensors on a device.

``digits`` comes from paperkit.vision (the shared digits loader: the same stratified split and training-set
z-scores this package always used, bit for bit); ``breast_cancer`` from scikit-learn's bundled copy.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from paperkit.validation import check_choice
from paperkit.vision import load_digits

DATASETS = ("digits", "breast_cancer")


@dataclass(frozen=True)
class Dataset:
    """A classification split.

    Attributes:
        x_train: (n, d) float32; y_train: (n,) int64; x_test: (m, d) float32; y_test: (m,) int64.
        n_classes: number of classes.
        name: the data set's name.
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
    def d(self) -> int:
        return int(self.x_train.shape[1])


def _split(n: int, frac: float, labels: np.ndarray, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Stratified split: indices (first, second) with ``frac`` of each class in the second."""
    rng = np.random.default_rng(seed)
    first, second = [], []
    for c in np.unique(labels):
        idx = rng.permutation(np.flatnonzero(labels == c))
        k = round(frac * len(idx))
        second.append(idx[:k])
        first.append(idx[k:])
    return np.sort(np.concatenate(first)), np.sort(np.concatenate(second))


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
        return Dataset(
            x_train=split.x_train.to(device),
            y_train=split.y_train.to(device),
            x_test=split.x_test.to(device),
            y_test=split.y_test.to(device),
            n_classes=split.n_classes,
            name=name,
        )
    from sklearn import datasets  # imported here: only breast_cancer needs scikit-learn

    bunch = datasets.load_breast_cancer()
    x, y = np.asarray(bunch.data, dtype=np.float64), np.asarray(bunch.target, dtype=np.int64)
    tr, te = _split(len(y), 0.2, y, seed)
    if validation:
        tr2, va = _split(len(tr), 0.1, y[tr], seed + 1)
        tr, te = tr[tr2], tr[va]
    mean, std = x[tr].mean(0), x[tr].std(0)
    std[std == 0] = 1.0
    x = (x - mean) / std

    def t(a: np.ndarray, dtype: torch.dtype) -> torch.Tensor:
        return torch.as_tensor(a, dtype=dtype, device=device)

    return Dataset(
        t(x[tr], torch.float32),
        t(y[tr], torch.int64),
        t(x[te], torch.float32),
        t(y[te], torch.int64),
        int(y.max()) + 1,
        name,
    )


__all__ = ["DATASETS", "Dataset", "load"]
