"""Complementary labels: generators (official ``utils_data.py``) and the checks every entry point shares.

A complementary-label matrix ``C`` is ``(n, K)`` with ``C[i, k] = 1`` iff class ``k`` is known *not* to be
the label of example ``i``.

- ``distr = 0`` (:func:`uniform_complementary`): ``nc`` classes drawn uniformly without replacement from the
  ``K - 1`` wrong ones (the paper's default ``nc = 1``).
- ``distr = 1`` (:func:`subset_complementary`): the official generator after Feng et al. (2020): the number
  of complementary labels ``s`` is random with ``P(s) = binom(K, s) / (2^K - 2)``, ``s = 1 .. K-1`` (these
  weights sum to one), then ``s`` wrong classes are drawn uniformly without replacement.

Bad input refused here (and so at every public entry): a row with no complementary label, a row marking
every class (the complementary set equals the label set), a true label marked complementary (only
detectable where true labels are given: generators and diagnostics), and classes with no examples.
"""

from __future__ import annotations

from math import comb

import numpy as np
import torch
from paperkit import check_array, check_int, check_seed

__all__ = [
    "check_complementary",
    "check_labels",
    "subset_complementary",
    "subset_weights",
    "uniform_complementary",
]


def check_labels(y: object, n_classes: int, name: str = "y", *, every_class: bool = True) -> np.ndarray:
    """``y`` as an int64 ``(n,)`` array of labels in ``0 .. n_classes-1`` in which (``every_class``) every
    class occurs."""
    K = check_int(n_classes, "n_classes", low=2)
    arr = np.asarray(check_array(y.cpu() if isinstance(y, torch.Tensor) else y, name, ndim=1, kind="iu"))
    if arr.size == 0:
        raise ValueError(f"{name} must hold at least one label, got none")
    if arr.min() < 0 or arr.max() >= K:
        raise ValueError(f"{name} must hold labels in 0 .. {K - 1}, got {arr.min()} .. {arr.max()}")
    empty = np.flatnonzero(np.bincount(arr, minlength=K) == 0)
    if every_class and empty.size:
        raise ValueError(
            f"{name}: classes {empty.tolist()} have no examples; every one of the {K} classes needs one"
        )
    return arr.astype(np.int64)


def check_complementary(C: object, name: str = "C", *, y: object = None) -> torch.Tensor:
    """``C`` as a float32 ``(n, K)`` 0/1 tensor (on its device) in which every row marks at least one class
    and leaves at least one candidate. With ``y`` given, no row may mark its true label."""
    t = C if isinstance(C, torch.Tensor) else torch.as_tensor(np.asarray(C))
    check_array(t, name, ndim=2)
    n, K = t.shape
    if n == 0 or K < 2:
        raise ValueError(f"{name} must be (n >= 1, K >= 2), got shape {tuple(t.shape)}")
    t = t.to(torch.float32)
    if not bool(((t == 0) | (t == 1)).all()):
        raise ValueError(f"{name} must hold only 0 and 1")
    count = t.sum(1)
    if bool((count == 0).any()):
        i = int(torch.nonzero(count == 0)[0])
        raise ValueError(f"{name} row {i} has no complementary label; every example needs at least one")
    if bool((count == K).any()):
        i = int(torch.nonzero(count == K)[0])
        raise ValueError(
            f"{name} row {i} marks all {K} classes complementary: the complementary set equals the label "
            "set, so no label is left"
        )
    if y is not None:
        yy = torch.as_tensor(check_labels(y, K, "y_true", every_class=False), device=t.device)
        if len(yy) != n:
            raise ValueError(f"y_true has {len(yy)} labels for {n} rows of {name}")
        bad = t[torch.arange(n, device=t.device), yy] == 1
        if bool(bad.any()):
            i = int(torch.nonzero(bad)[0])
            raise ValueError(f"{name} row {i} marks its true label {int(yy[i])} as complementary")
    return t


def uniform_complementary(y: object, n_classes: int, *, nc: int = 1, seed: int) -> np.ndarray:
    """``(n, K)`` float32 matrix: ``nc`` wrong classes per example, uniform without replacement (``distr 0``).

    ``nc`` must be in ``1 .. K-1``: ``nc = K`` would make the complementary set the whole label set.
    """
    yy = check_labels(y, n_classes)
    K = int(n_classes)
    nc = check_int(nc, "nc", low=1, high=K - 1)
    rng = np.random.default_rng(check_seed(seed))
    # A random key per (example, class), +inf on the true class: the nc smallest keys are a uniform
    # nc-subset of the wrong classes, drawn for all examples at once.
    keys = rng.random((len(yy), K))
    keys[np.arange(len(yy)), yy] = np.inf
    pick = np.argsort(keys, axis=1)[:, :nc]
    C = np.zeros((len(yy), K), dtype=np.float32)
    np.put_along_axis(C, pick, 1.0, axis=1)
    return C


def subset_weights(n_classes: int) -> np.ndarray:
    """``P(|C| = s) = binom(K, s) / (2^K - 2)`` for ``s = 1 .. K-1`` (the official ``distr 1`` weights)."""
    K = check_int(n_classes, "n_classes", low=2)
    w = np.array([comb(K, s) for s in range(1, K)], dtype=float)
    return w / w.sum()


def subset_complementary(y: object, n_classes: int, *, seed: int) -> np.ndarray:
    """``(n, K)`` float32 matrix with a random number of complementary labels per example (``distr 1``):
    size ``s`` from :func:`subset_weights`, then ``s`` wrong classes uniformly without replacement."""
    yy = check_labels(y, n_classes)
    K = int(n_classes)
    rng = np.random.default_rng(check_seed(seed))
    sizes = rng.choice(np.arange(1, K), size=len(yy), p=subset_weights(K))
    keys = rng.random((len(yy), K))
    keys[np.arange(len(yy)), yy] = np.inf
    rank = np.argsort(np.argsort(keys, axis=1), axis=1)  # rank of each class's key within its row
    return (rank < sizes[:, None]).astype(np.float32)
