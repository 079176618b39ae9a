"""The network trained by GD under CE (the paper's setting) and its baselines, behind one registry.

- ``network-ce``: the network (FCN or ResNet) trained by full-batch GD on cross-entropy (logistic for
  labels in {-1, +1}, softmax for class labels 0 .. K-1).
- ``network-mse``: the same network from the same theta_0 on squared loss (the lazy contrast).
- ``kernel-ce``: NTK theory's prediction for CE: function-space GD f <- f - eta K grad_f L with the
  fixed limiting kernel Theta(X, X) (Theta (x) I_K for K classes), from the network's f_0.
- ``linearised-ce``: the linearised network f_lin = f_0 + J_0 (theta - theta_0) under CE; on the training
  set it is function-space GD with the fixed empirical K_0, and ||theta - theta_0||^2 = a^T K_0 a where
  a is the accumulated step sum eta * grad_f L (exact, no parameters materialised).

Every method is ``call(X, y, *, width, depth, steps, lr, n_checkpoints, seed, arch, alpha, device)
-> Trajectory``; ``arch`` is ``"fcn"`` (``depth`` hidden layers) or ``"resnet"`` (``depth`` residual blocks
of scale ``alpha``). The same seed gives every method the same theta_0 (paired).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
from paperkit import check_array, check_choice, check_int, check_number, check_positive, check_seed

from ntk_divergence.backprop import Net, ntk_gram, numpy_params
from ntk_divergence.kernels import fc_ntk, resnet_ntk
from ntk_divergence.models import FCN, ResNet
from ntk_divergence.training import LOSSES, Trajectory, log_checkpoints, margins, output_loss, train_gd

ARCHS = ("fcn", "resnet")

__all__ = ["ARCHS", "METHODS", "MethodInfo", "build", "kernel_gd", "limiting_ntk", "run_method"]


@dataclass(frozen=True)
class MethodInfo:
    """A registry entry: its loss, whether its kernel moves, and the entry point."""

    loss: str
    kernel_moves: bool
    call: Callable[..., Trajectory]


def kernel_gd(
    K: np.ndarray, f0: np.ndarray, y: np.ndarray, *, loss: str, lr: float, steps: int, n_checkpoints: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Function-space GD with a fixed kernel: ``(steps, outputs, dist (k,))`` where dist is sqrt(a^T K a),
    the parameter distance of the linearised model whose kernel is K.

    ``f0`` is ``(n,)`` (binary, y in {-1, +1}, K ``(n, n)``) or ``(n, C)`` (classes, K ``(C n, C n)``,
    class-major rows); outputs are ``(k, n)`` or ``(k, n, C)``.
    """
    f = np.array(f0, dtype=float)
    binary = f.ndim == 1
    f = f[:, None] if binary else f
    n, c = f.shape
    K = np.asarray(check_array(K, "K", shape=(n * c, n * c)), float)
    loss = check_choice(loss, "loss", LOSSES)
    lr = check_positive(lr, "lr")
    marks = log_checkpoints(steps, n_checkpoints)
    a = np.zeros(n * c)
    outs, dist, t = [], [], 0
    for mark in marks:
        for _ in range(int(mark) - t):
            g = output_loss(f, y, loss)[1].T.reshape(-1)  # class-major, as the Gram rows
            a += lr * g
            f = f - lr * (K @ g).reshape(c, n).T
        t = int(mark)
        outs.append(f[:, 0].copy() if binary else f.copy())
        dist.append(float(np.sqrt(max(a @ K @ a, 0.0))))
    return marks.astype(float), np.stack(outs), np.asarray(dist)


def limiting_ntk(X: np.ndarray, *, arch: str = "fcn", depth: int = 1, alpha: float = 1.0) -> np.ndarray:
    """``(n, n)`` analytic NTK of the architecture on X (FCN: ``depth`` layers; ResNet: ``depth`` blocks)."""
    if check_choice(arch, "arch", ARCHS) == "resnet":
        return resnet_ntk(X, n_blocks=depth, alpha=alpha)[0]
    return fc_ntk(X, depth=depth)[0]


def build(
    d_in: int, width: int, *, arch: str = "fcn", depth: int = 1, alpha: float = 1.0, out_dim: int = 1,
    seed: int, device: str = "cpu",
) -> Net:  # fmt: skip
    """The network of ``arch`` with theta_0 drawn from ``torch.Generator().manual_seed(seed)``."""
    gen = torch.Generator(device=device).manual_seed(check_seed(seed))
    if check_choice(arch, "arch", ARCHS) == "resnet":
        return ResNet(d_in, width, depth, alpha=alpha, out_dim=out_dim, generator=gen, device=device)
    return FCN(d_in, width, depth, out_dim=out_dim, generator=gen, device=device)


def _out_dim(y: np.ndarray) -> int:
    if np.all(np.abs(y) == 1):
        return 1
    if np.all(y == np.round(y)) and y.min() >= 0:
        return int(y.max()) + 1
    raise ValueError("y must hold labels in {-1, +1} (binary) or class labels 0 .. K-1")


def _setup(
    X: np.ndarray, y: np.ndarray, *, width: int, depth: int, seed: int, arch: str, alpha: float, device: str
) -> tuple[Net, torch.Tensor, torch.Tensor, np.ndarray]:
    X = np.asarray(check_array(X, "X", ndim=2), float)
    y = np.asarray(check_array(y, "y", shape=(X.shape[0],)), float)
    width, depth = check_int(width, "width", low=1), check_int(depth, "depth", low=1)
    alpha = check_number(alpha, "alpha", low=0.0)
    model = build(
        X.shape[1], width, arch=arch, depth=depth, alpha=alpha, out_dim=_out_dim(y), seed=seed, device=device
    )
    theta = limiting_ntk(X, arch=arch, depth=depth, alpha=alpha)
    return model, torch.as_tensor(X, device=device), torch.as_tensor(y, device=device), theta


def _network(loss: str) -> Callable[..., Trajectory]:
    def call(
        X: np.ndarray, y: np.ndarray, *, width: int, depth: int = 1, steps: int, lr: float = 1.0,
        n_checkpoints: int = 20, seed: int, arch: str = "fcn", alpha: float = 1.0, device: str = "cpu",
    ) -> Trajectory:  # fmt: skip
        model, Xt, yt, theta = _setup(
            X, y, width=width, depth=depth, seed=seed, arch=arch, alpha=alpha, device=device
        )
        return train_gd(
            model, Xt, yt, loss=loss, lr=lr, steps=steps, n_checkpoints=n_checkpoints, theta=theta
        )

    return call


def _fixed_kernel(kind: str) -> Callable[..., Trajectory]:
    def call(
        X: np.ndarray, y: np.ndarray, *, width: int, depth: int = 1, steps: int, lr: float = 1.0,
        n_checkpoints: int = 20, seed: int, arch: str = "fcn", alpha: float = 1.0, device: str = "cpu",
    ) -> Trajectory:  # fmt: skip
        model, Xt, _, theta = _setup(
            X, y, width=width, depth=depth, seed=seed, arch=arch, alpha=alpha, device=device
        )
        y = np.asarray(y, float)
        with torch.no_grad():
            f0 = model(Xt).cpu().numpy()
        theta = theta if model.out_dim == 1 else np.kron(np.eye(model.out_dim), theta)
        K = theta if kind == "kernel" else ntk_gram(numpy_params(model), model, np.asarray(X, float))
        ts, outs, dist = kernel_gd(K, f0, y, loss="ce", lr=lr, steps=steps, n_checkpoints=n_checkpoints)
        out2 = outs[..., None] if outs.ndim == 2 else outs
        margin = np.array([margins(o, y).min() for o in out2])
        loss_t = np.array([output_loss(o, y, "ce")[0] for o in out2])
        const = np.full(len(ts), np.linalg.eigvalsh(K)[0])
        dev = np.linalg.norm(K - theta) / np.linalg.norm(theta)
        return Trajectory(
            "ce", ts, dist, np.zeros(len(ts)), np.full(len(ts), dev),
            np.full(len(ts), np.abs(K - theta).max()), const, margin, loss_t, outs, 0,
        )  # fmt: skip

    return call


METHODS: dict[str, MethodInfo] = {
    "network-ce": MethodInfo("ce", True, _network("ce")),
    "network-mse": MethodInfo("mse", True, _network("mse")),
    "kernel-ce": MethodInfo("ce", False, _fixed_kernel("kernel")),
    "linearised-ce": MethodInfo("ce", False, _fixed_kernel("linearised")),
}


def run_method(name: str, X: np.ndarray, y: np.ndarray, **kw: object) -> Trajectory:
    """Run the registry method ``name`` (one of :data:`METHODS`)."""
    return METHODS[check_choice(name, "name", tuple(METHODS))].call(X, y, **kw)
