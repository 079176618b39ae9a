"""The AccNet and its baselines behind one registry.

- ``accnet``: the accordion network ``[d_in, wide, narrow, ..., wide, d_out]`` (the paper's method).
- ``shallow``: one hidden ReLU layer (the shallow network the paper contrasts with).
- ``deep``: a plain deep MLP (the official code's DNN; read as an AccNet whose blocks are layer pairs).
- ``krr``: kernel ridge regression with a Matérn kernel on the RMS distance (the kernel-method reference;
  given Z instead of X it is the spec's oracle-g baseline: h alone, learned in d_mid dimensions).

Networks: ``call(X_train, Y_train, X_test, Y_test, *, stages, n_batches, lr_scale, <architecture>, seed,
device) -> Fit``; the same seed gives the same initialisation (data order is fixed: contiguous batches).
Each method declares the one hyperparameter a reproduction tunes and its grid: the networks tune
``lr_scale`` (a factor on every stage's learning rate), KRR its ridge, over five values each (the
first 3- and 4-value grids put the chosen value on an edge: RESULTS.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import torch
from paperkit import (
    check_array,
    check_choice,
    check_instance,
    check_int,
    check_number,
    check_positive,
    check_seed,
)

from compositional_dnn.kernels import matern_kernel
from compositional_dnn.models import MLP, AccNet, DeepMLP, ShallowNet, check_device
from compositional_dnn.training import Stage, check_stages, mse, train_staged

__all__ = ["METHODS", "Fit", "MethodInfo", "matern_krr", "run_method"]

# A compressed final-notebook schedule (1:1:4 epochs); the reproduction passes its own.
DEFAULT_STAGES: tuple[Stage, ...] = ((1e-3, 0.0, 50), (3e-4, 1e-4, 50), (1e-4, 2e-4, 200))


@dataclass(frozen=True)
class Fit:
    """Test and train MSE (mean over samples and outputs); the complexity proxy (networks; None for KRR)."""

    test_mse: float
    train_mse: float
    complexity: float | None


@dataclass(frozen=True)
class MethodInfo:
    """A registry entry: network or kernel method, the hyperparameter tuned and its grid, the entry point."""

    kind: str
    hyper: str
    grid: tuple[float, ...]
    call: Callable[..., Fit]


def _check_split(
    X_train: np.ndarray, Y_train: np.ndarray, X_test: np.ndarray, Y_test: np.ndarray
) -> tuple[np.ndarray, ...]:
    """Finite real arrays (float64) with matching shapes, N >= d >= 1 training rows, >= 1 test row."""
    X_train = np.asarray(check_array(X_train, "X_train", ndim=2, kind="fiu"), float)
    n, d = X_train.shape
    if d == 0:
        raise ValueError("X_train must have at least one column, got 0")
    if n < d:
        raise ValueError(f"X_train must have at least as many rows as the input dimension {d}, got N = {n}")
    Y_train = np.asarray(check_array(Y_train, "Y_train", shape=(n, None), kind="fiu"), float)
    if Y_train.shape[1] == 0:
        raise ValueError("Y_train must have at least one column, got 0")
    X_test = np.asarray(check_array(X_test, "X_test", shape=(None, d), kind="fiu"), float)
    if len(X_test) == 0:
        raise ValueError("X_test must have at least one row, got 0")
    Y_test = np.asarray(
        check_array(Y_test, "Y_test", shape=(len(X_test), Y_train.shape[1]), kind="fiu"), float
    )
    return X_train, Y_train, X_test, Y_test


def _train_network(
    build: Callable[[int, int, torch.Generator, torch.device], MLP],
    data: tuple[np.ndarray, ...],
    *,
    stages: Sequence[Stage],
    n_batches: int,
    lr_scale: float,
    seed: int,
    device: str,
) -> Fit:
    lr_scale = check_positive(lr_scale, "lr_scale")
    stages = [(lr * lr_scale, wd, ep) for lr, wd, ep in check_stages(stages)]
    seed, dev = check_seed(seed), check_device(device)
    n_batches = check_int(n_batches, "n_batches", low=1, high=len(data[0]))
    Xtr, Ytr, Xte, Yte = (torch.as_tensor(a, dtype=torch.float32, device=dev) for a in data)
    gen = torch.Generator(device=dev).manual_seed(seed)
    model = build(Xtr.shape[1], Ytr.shape[1], gen, dev)
    train_staged(model, Xtr, Ytr, stages=stages, n_batches=n_batches)
    cx = model.complexity(Xtr) if len(model.linears) % 2 == 0 else None
    return Fit(mse(model, Xte, Yte), mse(model, Xtr, Ytr), cx)


def accnet(
    X_train: np.ndarray, Y_train: np.ndarray, X_test: np.ndarray, Y_test: np.ndarray, *,
    wide: int = 256, narrow: int = 16, n_blocks: int = 2, stages: Sequence[Stage] = DEFAULT_STAGES,
    n_batches: int = 5, lr_scale: float = 1.0, seed: int, device: str = "cpu",
) -> Fit:  # fmt: skip
    """AccNet (spec small scale: [15, 256, 16, 256, 20]; official [15, 900, 100, ..., 900, 20], 5 blocks)."""
    data = _check_split(X_train, Y_train, X_test, Y_test)
    return _train_network(
        lambda i, o, g, d: AccNet(i, o, wide=wide, narrow=narrow, n_blocks=n_blocks, generator=g, device=d),
        data, stages=stages, n_batches=n_batches, lr_scale=lr_scale, seed=seed, device=device,
    )  # fmt: skip


def shallow(
    X_train: np.ndarray, Y_train: np.ndarray, X_test: np.ndarray, Y_test: np.ndarray, *,
    width: int = 1024, stages: Sequence[Stage] = DEFAULT_STAGES, n_batches: int = 5, lr_scale: float = 1.0,
    seed: int, device: str = "cpu",
) -> Fit:  # fmt: skip
    """One hidden layer (spec small scale: width 1024; official 50 000)."""
    data = _check_split(X_train, Y_train, X_test, Y_test)
    return _train_network(
        lambda i, o, g, d: ShallowNet(i, o, width=width, generator=g, device=d),
        data, stages=stages, n_batches=n_batches, lr_scale=lr_scale, seed=seed, device=device,
    )  # fmt: skip


def deep(
    X_train: np.ndarray, Y_train: np.ndarray, X_test: np.ndarray, Y_test: np.ndarray, *,
    width: int = 128, depth: int = 3, stages: Sequence[Stage] = DEFAULT_STAGES, n_batches: int = 5,
    lr_scale: float = 1.0, seed: int, device: str = "cpu",
) -> Fit:  # fmt: skip
    """A deep MLP (official: 12 hidden layers of width 500)."""
    data = _check_split(X_train, Y_train, X_test, Y_test)
    return _train_network(
        lambda i, o, g, d: DeepMLP(i, o, width=width, depth=depth, generator=g, device=d),
        data, stages=stages, n_batches=n_batches, lr_scale=lr_scale, seed=seed, device=device,
    )  # fmt: skip


def matern_krr(
    X_train: np.ndarray, Y_train: np.ndarray, X_test: np.ndarray, *, nu: float = 0.5, ridge: float
) -> np.ndarray:
    """Kernel ridge regression predictions ``(n_test, d_out)``: K(X_test, X) (K(X, X) + ridge I)^{-1} Y."""
    ridge = check_positive(ridge, "ridge")
    X_train = np.asarray(check_array(X_train, "X_train", ndim=2, kind="fiu"), float)
    Y_train = np.asarray(check_array(Y_train, "Y_train", kind="fiu"), float)
    n = len(X_train)
    if Y_train.ndim not in (1, 2) or len(Y_train) != n:
        raise ValueError(f"Y_train must be an array of shape ({n},) or ({n}, k), got shape {Y_train.shape}")
    check_array(X_test, "X_test", shape=(None, X_train.shape[1]), kind="fiu")
    K = matern_kernel(X_train, nu)
    K[np.diag_indices_from(K)] += ridge
    alpha = np.linalg.solve(K, Y_train)
    return matern_kernel(X_test, nu, X_train) @ alpha


def krr(
    X_train: np.ndarray, Y_train: np.ndarray, X_test: np.ndarray, Y_test: np.ndarray, *,
    ridge: float = 1e-2, nu: float = 0.5,
) -> Fit:  # fmt: skip
    """Matérn KRR (nu = 0.5: the Laplace kernel) on the RMS distance."""
    Xtr, Ytr, Xte, Yte = _check_split(X_train, Y_train, X_test, Y_test)
    ridge = check_number(ridge, "ridge", low=0, low_open=True)
    both = matern_krr(Xtr, Ytr, np.concatenate([Xte, Xtr]), nu=nu, ridge=ridge)
    test, train = both[: len(Xte)], both[len(Xte) :]
    return Fit(float(np.mean((test - Yte) ** 2)), float(np.mean((train - Ytr) ** 2)), None)


METHODS: dict[str, MethodInfo] = {
    "accnet": MethodInfo("network", "lr_scale", (0.125, 0.25, 0.5, 1.0, 2.0), accnet),
    "shallow": MethodInfo("network", "lr_scale", (0.125, 0.25, 0.5, 1.0, 2.0), shallow),
    "deep": MethodInfo("network", "lr_scale", (0.125, 0.25, 0.5, 1.0, 2.0), deep),
    "krr": MethodInfo("kernel", "ridge", (1e-3, 1e-2, 1e-1, 1.0, 10.0), krr),
}


def run_method(name: str, *args: object, **kw: object) -> Fit:
    """Run the registry method ``name`` (one of :data:`METHODS`)."""
    check_instance(name, "name", str)
    return METHODS[check_choice(name, "name", tuple(METHODS))].call(*args, **kw)
