"""The network trained by GD under CE (the paper's setting) and its baselines, behind one registry.

- ``network-ce``: the FCN trained by full-batch GD on binary cross-entropy.
- ``network-mse``: the same network from the same theta_0 on squared loss (the lazy contrast).
- ``kernel-ce``: NTK theory's prediction for CE: function-space GD f <- f - eta K grad_f L with the
  fixed limiting kernel Theta(X, X), from the network's f_0 on the training set.
- ``linearised-ce``: the linearised network f_lin = f_0 + J_0 (theta - theta_0) under CE; on the training
  set it is function-space GD with the fixed empirical K_0, and ||theta - theta_0||^2 = a^T K_0 a where
  a is the accumulated step sum eta * grad_f L (exact, no parameters materialised).

Every method is ``call(X, y, *, width, depth, steps, lr, n_checkpoints, seed, device) -> Trajectory``;
the same seed gives every method the same theta_0 (paired).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
from paperkit import check_array, check_choice, check_int, check_positive, check_seed

from ntk_divergence.kernels import fc_ntk
from ntk_divergence.models import FCN
from ntk_divergence.training import LOSSES, Trajectory, fcn_ntk_gram, log_checkpoints, train_gd

__all__ = ["METHODS", "MethodInfo", "kernel_gd", "run_method"]


@dataclass(frozen=True)
class MethodInfo:
    """A registry entry: its loss, whether its kernel moves, and the entry point."""

    loss: str
    kernel_moves: bool
    call: Callable[..., Trajectory]


def kernel_gd(
    K: np.ndarray, f0: np.ndarray, y: np.ndarray, *, loss: str, lr: float, steps: int, n_checkpoints: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Function-space GD with a fixed kernel: ``(steps, outputs (k, n), dist (k,))`` where dist is
    sqrt(a^T K a), the parameter distance of the linearised model whose kernel is K."""
    K = np.asarray(check_array(K, "K", shape=("n", "n")), float)
    loss = check_choice(loss, "loss", LOSSES)
    lr = check_positive(lr, "lr")
    marks = log_checkpoints(steps, n_checkpoints)
    n = len(y)
    f, a = np.array(f0, dtype=float), np.zeros(n)
    outs, dist, t = [], [], 0
    for mark in marks:
        for _ in range(int(mark) - t):
            g = -y / (1.0 + np.exp(np.clip(y * f, -700, 700))) / n if loss == "ce" else (f - y) / n
            a += lr * g
            f = f - lr * (K @ g)
        t = int(mark)
        outs.append(f.copy())
        dist.append(float(np.sqrt(max(a @ K @ a, 0.0))))
    return marks.astype(float), np.stack(outs), np.asarray(dist)


def _network(loss: str) -> Callable[..., Trajectory]:
    def call(
        X: np.ndarray,
        y: np.ndarray,
        *,
        width: int,
        depth: int = 1,
        steps: int,
        lr: float = 1.0,
        n_checkpoints: int = 20,
        seed: int,
        device: str = "cpu",
    ) -> Trajectory:
        model, Xt, yt, theta = _setup(X, y, width=width, depth=depth, seed=seed, device=device)
        return train_gd(
            model, Xt, yt, loss=loss, lr=lr, steps=steps, n_checkpoints=n_checkpoints, theta=theta
        )

    return call


def _fixed_kernel(kind: str) -> Callable[..., Trajectory]:
    def call(
        X: np.ndarray,
        y: np.ndarray,
        *,
        width: int,
        depth: int = 1,
        steps: int,
        lr: float = 1.0,
        n_checkpoints: int = 20,
        seed: int,
        device: str = "cpu",
    ) -> Trajectory:
        model, Xt, _, theta = _setup(X, y, width=width, depth=depth, seed=seed, device=device)
        with torch.no_grad():
            f0 = model(Xt).cpu().numpy()
        k0 = fcn_ntk_gram(_numpy_params(model), model, np.asarray(X, float))
        K = theta if kind == "kernel" else k0
        ts, outs, dist = kernel_gd(
            K, f0, np.asarray(y, float), loss="ce", lr=lr, steps=steps, n_checkpoints=n_checkpoints
        )
        margins = (outs * y).min(axis=1)
        loss_t = np.logaddexp(0.0, -outs * y).mean(axis=1)
        const = np.full(len(ts), np.linalg.eigvalsh(K)[0])
        dev = np.linalg.norm(K - theta) / np.linalg.norm(theta)
        return Trajectory(
            "ce", ts, dist, np.zeros(len(ts)), np.full(len(ts), dev),
            np.full(len(ts), np.abs(K - theta).max()), const, margins, loss_t, outs, 0,
        )  # fmt: skip

    return call


def _setup(
    X: np.ndarray, y: np.ndarray, *, width: int, depth: int, seed: int, device: str
) -> tuple[FCN, torch.Tensor, torch.Tensor, np.ndarray]:
    X = np.asarray(check_array(X, "X", ndim=2), float)
    y = np.asarray(check_array(y, "y", shape=(X.shape[0],)), float)
    if not np.all(np.abs(y) == 1):
        raise ValueError("y must hold labels in {-1, +1}")
    gen = torch.Generator(device=device).manual_seed(check_seed(seed))
    model = FCN(X.shape[1], check_int(width, "width", low=1), depth, generator=gen, device=device)
    theta, _ = fc_ntk(X, depth=depth)
    Xt = torch.as_tensor(X, device=device)
    return model, Xt, torch.as_tensor(y, device=device), theta


def _numpy_params(model: FCN) -> dict[str, np.ndarray]:
    return {k: v.detach().cpu().numpy() for k, v in model.named_parameters()}


METHODS: dict[str, MethodInfo] = {
    "network-ce": MethodInfo("ce", True, _network("ce")),
    "network-mse": MethodInfo("mse", True, _network("mse")),
    "kernel-ce": MethodInfo("ce", False, _fixed_kernel("kernel")),
    "linearised-ce": MethodInfo("ce", False, _fixed_kernel("linearised")),
}


def run_method(name: str, X: np.ndarray, y: np.ndarray, **kw: object) -> Trajectory:
    """Run the registry method ``name`` (one of :data:`METHODS`)."""
    return METHODS[check_choice(name, "name", tuple(METHODS))].call(X, y, **kw)
