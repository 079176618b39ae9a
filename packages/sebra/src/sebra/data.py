"""Digits-UrbanCars: two-shortcut images with ground-truth spuriosity (spec, "Small-scale reproduction").

Core label ``y`` = parity of an sklearn 8x8 digit (0: even, 1: odd), pasted at a random offset (3..5 px in
each direction) into a 16x16 canvas. Two shortcuts, each with a binary attribute ``s``:

- S1 (background, UrbanCars' BG): stripes of intensity ``stripe_intensity`` with period 4 px (2 on, 2 off),
  horizontal for ``s1 = 0`` and vertical for ``s1 = 1``;
- S2 (co-occurring object, UrbanCars' CoObj): a 3x3 square of intensity ``square_intensity`` in the
  top-left corner for ``s2 = 0`` and the bottom-right corner for ``s2 = 1``.

A shortcut is *aligned* when ``s == y``. Training split: each shortcut is aligned with probability
``ratio_s1`` / ``ratio_s2`` independently (UrbanCars: 0.95 / 0.95, so ~90% of images carry both cues). The
validation and test splits are exactly balanced over the four alignment patterns (``n`` a multiple of 4
gives equal counts). Ground-truth spuriosity = number of aligned shortcuts (0, 1, 2). Pixels combine by
maximum, so the digit is drawn over the stripes; digits never touch the corner squares (rows/cols 3..12).

The three splits draw their digits (with replacement) from disjoint stratified pools of the 1 797 digits
(60 / 15 / 25%), so no digit image is shared between training and test.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from paperkit import check_array, check_instance, check_int, check_number, check_probability, check_seed
from paperkit.vision import digits_arrays, stratified_split
from paperkit.vision.common import as_device, check_images

__all__ = ["SIZE", "Shortcuts", "make_digit_urbancars", "render"]

SIZE = 16
_PERIOD = 4
_SQUARE = 3


@dataclass(frozen=True)
class Shortcuts:
    """One split. ``x (n, 1, 16, 16)`` float32 in [0, 1]; ``y, s1, s2, digit (n,)`` int64.

    ``aligned (n,)`` int64 is the ground-truth spuriosity (0, 1, 2 aligned cues); ``group (n,)`` int64 is
    ``4 y + 2 [s1 == y] + [s2 == y]`` (class x alignment pattern, 8 groups).
    """

    x: torch.Tensor
    y: torch.Tensor
    s1: torch.Tensor
    s2: torch.Tensor
    digit: torch.Tensor

    def __post_init__(self) -> None:
        n = len(check_images(self.x, "x"))
        for name in ("y", "s1", "s2", "digit"):
            t = check_instance(getattr(self, name), name, torch.Tensor)
            if t.dtype != torch.int64 or t.shape != (n,):
                raise ValueError(
                    f"{name} must be an int64 vector of len(x) = {n}, got {tuple(t.shape)} {t.dtype}"
                )
        for name in ("y", "s1", "s2"):
            if len(t := getattr(self, name)) and not 0 <= int(t.min()) <= int(t.max()) <= 1:
                raise ValueError(f"{name} must be binary (0 or 1), got values {torch.unique(t).tolist()}")

    @property
    def aligned(self) -> torch.Tensor:
        return (self.s1 == self.y).long() + (self.s2 == self.y).long()

    @property
    def group(self) -> torch.Tensor:
        return 4 * self.y + 2 * (self.s1 == self.y).long() + (self.s2 == self.y).long()

    def __len__(self) -> int:
        return int(self.y.shape[0])

    def subset(self, idx: torch.Tensor) -> Shortcuts:
        return Shortcuts(self.x[idx], self.y[idx], self.s1[idx], self.s2[idx], self.digit[idx])


def render(
    digits: np.ndarray,
    s1: np.ndarray,
    s2: np.ndarray,
    offsets: np.ndarray,
    *,
    stripe_intensity: float,
    square_intensity: float,
) -> np.ndarray:
    """``(n, 16, 16)`` canvases from ``digits (n, 8, 8)``, ``s1, s2 (n,)`` (0/1) and ``offsets (n, 2)``
    (each in 0..8, the digit's top-left corner)."""
    digits = np.asarray(check_array(digits, "digits", shape=("n", 8, 8), kind="fiu"))
    n = len(digits)
    s1, s2 = (np.asarray(check_array(a, k, shape=(n,), kind="biu")) for a, k in ((s1, "s1"), (s2, "s2")))
    offsets = np.asarray(check_array(offsets, "offsets", shape=(n, 2), kind="iu"))
    for a, k, hi in ((s1, "s1", 1), (s2, "s2", 1), (offsets, "offsets", SIZE - 8)):
        if a.size and not 0 <= int(a.min()) <= int(a.max()) <= hi:
            raise ValueError(f"{k} must hold values in 0..{hi}, got {int(a.min())}..{int(a.max())}")
    stripe_intensity = check_number(stripe_intensity, "stripe_intensity", low=0.0, high=1.0)
    square_intensity = check_number(square_intensity, "square_intensity", low=0.0, high=1.0)
    r = np.arange(SIZE)
    on = (r % _PERIOD) < _PERIOD // 2
    horizontal = np.broadcast_to(on[:, None], (SIZE, SIZE))
    stripes = np.where(s1[:, None, None] == 0, horizontal, horizontal.T) * stripe_intensity
    canvas = stripes.astype(np.float32)
    rows = offsets[:, 0, None, None] + np.arange(8)[None, :, None]
    cols = offsets[:, 1, None, None] + np.arange(8)[None, None, :]
    ii = np.arange(n)[:, None, None]
    canvas[ii, rows, cols] = np.maximum(canvas[ii, rows, cols], digits)
    lo = SIZE - _SQUARE
    sq_r = np.where(s2 == 0, 0, lo)[:, None, None] + np.arange(_SQUARE)[None, :, None]
    sq_c = np.where(s2 == 0, 0, lo)[:, None, None] + np.arange(_SQUARE)[None, None, :]
    canvas[ii, sq_r, sq_c] = np.maximum(canvas[ii, sq_r, sq_c], square_intensity)
    return canvas


def _split(
    images: np.ndarray,
    labels: np.ndarray,
    pool: np.ndarray,
    n: int,
    rng: np.random.Generator,
    ratios: tuple[float, float] | None,
    intensities: tuple[float, float],
    device: torch.device | str,
) -> Shortcuts:
    pick = rng.choice(pool, size=n, replace=True)
    y = labels[pick] % 2
    if ratios is None:  # balanced: every alignment pattern n/4 times
        pattern = rng.permutation(np.arange(n) % 4)
        a1, a2 = pattern // 2, pattern % 2
    else:
        a1 = (rng.random(n) < ratios[0]).astype(np.int64)
        a2 = (rng.random(n) < ratios[1]).astype(np.int64)
    s1, s2 = np.where(a1 == 1, y, 1 - y), np.where(a2 == 1, y, 1 - y)
    offsets = rng.integers(3, 6, size=(n, 2))
    x = render(
        images[pick], s1, s2, offsets, stripe_intensity=intensities[0], square_intensity=intensities[1]
    )

    def t(a: np.ndarray, dtype: torch.dtype) -> torch.Tensor:
        return torch.as_tensor(a, dtype=dtype, device=device)

    return Shortcuts(t(x[:, None], torch.float32), t(y, torch.int64), t(s1, torch.int64), t(s2, torch.int64),
                     t(labels[pick], torch.int64))  # fmt: skip


def make_digit_urbancars(
    n_train: int = 2000,
    n_val: int = 400,
    n_test: int = 1000,
    *,
    ratio_s1: float = 0.95,
    ratio_s2: float = 0.95,
    stripe_intensity: float = 0.1,
    square_intensity: float = 1.0,
    seed: int = 0,
    device: torch.device | str = "cpu",
) -> dict[str, Shortcuts]:
    """``{"train", "val", "test"}`` splits; the default is the spec's harder variant (weak stripes, 0.1).

    Randomness only from ``numpy.random.default_rng(seed)`` (the pool split uses ``seed`` too).
    """
    n_train = check_int(n_train, "n_train", low=4)
    n_val, n_test = check_int(n_val, "n_val", low=4), check_int(n_test, "n_test", low=4)
    ratios = (check_probability(ratio_s1, "ratio_s1"), check_probability(ratio_s2, "ratio_s2"))
    intens = (
        check_number(stripe_intensity, "stripe_intensity", low=0.0, high=1.0),
        check_number(square_intensity, "square_intensity", low=0.0, high=1.0),
    )
    seed, device = check_seed(seed), as_device(device)
    images, labels = digits_arrays(8)
    rest, test_pool = stratified_split(labels, 0.25, seed)
    tr, va = stratified_split(labels[rest], 0.2, seed + 1)
    rng = np.random.default_rng(seed)
    return {
        "train": _split(images, labels, rest[tr], n_train, rng, ratios, intens, device),
        "val": _split(images, labels, rest[va], n_val, rng, None, intens, device),
        "test": _split(images, labels, test_pool, n_test, rng, None, intens, device),
    }
