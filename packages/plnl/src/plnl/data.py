"""Digits with complementary labels (sklearn's 8x8 digits through ``paperkit.vision.load_digits``; offline).

One seed fixes everything a method sees: the stratified test split (20%), a stratified dev split of the
training part (true labels, for tuning only) and the ``n_train`` training images, and their complementary
labels. Pixels are in [0, 1]; images are ``(n, 1, 8, 8)`` float32 on ``device``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from paperkit import check_choice, check_int, check_seed
from paperkit.vision import load_digits, stratified_split

from plnl.checks import check_device
from plnl.labels import check_labels, subset_complementary, uniform_complementary

__all__ = ["CLLData", "cll_digits"]

N_TRAIN_PART = 1437  # digits' 80% training part (1797 images)


@dataclass(frozen=True)
class CLLData:
    """A complementary-label problem: ``C (n, K)`` labels the training images; ``y_train`` is for
    diagnostics only (PLG/NLE precision); dev and test carry true labels."""

    x_train: torch.Tensor
    C: torch.Tensor
    y_train: torch.Tensor
    x_dev: torch.Tensor
    y_dev: torch.Tensor
    x_test: torch.Tensor
    y_test: torch.Tensor

    @property
    def n_classes(self) -> int:
        return int(self.C.shape[1])


def cll_digits(
    n_train: int = 400, *, n_dev: int = 200, nc: int = 1, distr: int = 0, seed: int, device: str = "cpu"
) -> CLLData:
    """``n_train`` training images with complementary labels (``distr`` 0: ``nc`` uniform labels; 1: a
    random number, Feng et al.), ``n_dev`` dev images and the 360 test images, all stratified."""
    seed = check_seed(seed)
    n_train = check_int(n_train, "n_train", low=20, high=N_TRAIN_PART - 20)
    n_dev = check_int(n_dev, "n_dev", low=10, high=N_TRAIN_PART - n_train)
    distr = check_choice(distr, "distr", (0, 1))
    device = str(check_device(device))
    split = load_digits(8, seed=seed, device=device)
    y_all = split.y_train.cpu().numpy()
    rest, dev = stratified_split(y_all, n_dev / len(y_all), seed + 1)
    pick_frac = min(n_train / len(rest), 1 - 1e-9)
    _, tr = stratified_split(y_all[rest], pick_frac, seed + 2)
    tr = rest[tr][:n_train] if len(tr) >= n_train else rest[tr]
    y_tr = check_labels(y_all[tr], split.n_classes, "y_train")
    if distr == 0:
        C = uniform_complementary(y_tr, split.n_classes, nc=nc, seed=seed + 3)
    else:
        C = subset_complementary(y_tr, split.n_classes, seed=seed + 3)
    dev_t = torch.as_tensor(np.sort(dev), device=split.x_train.device)
    tr_t = torch.as_tensor(tr, device=split.x_train.device)
    return CLLData(
        split.x_train[tr_t],
        torch.as_tensor(C, device=split.x_train.device),
        split.y_train[tr_t],
        split.x_train[dev_t],
        split.y_train[dev_t],
        split.x_test,
        split.y_test,
    )
