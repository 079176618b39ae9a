"""Full-batch gradient descent (the paper's gradient flow, small step) with the traces the claims need.

Losses (n training points, network outputs f):

- binary (``out_dim = 1``, labels y_i in {-1, +1}):
  ``"ce"``: L = (1/n) sum_i log(1 + exp(-y_i f(x_i))) (logistic, as softplus);
  ``"mse"``: L = (1/n) sum_i (f(x_i) - y_i)^2 / 2 (the lazy-regime contrast).
- K classes (``out_dim = K > 1``, labels y_i in {0 .. K-1}, e_y the one-hot vector):
  ``"ce"``: L = (1/n) sum_i [logsumexp_a f_a(x_i) - f_{y_i}(x_i)] (softmax cross-entropy);
  ``"mse"``: L = (1/n) sum_i ||f(x_i) - e_{y_i}||^2 / 2.

The margin is y_i f(x_i) (binary) or f_{y_i}(x_i) - max_{a != y_i} f_a(x_i) (K classes). At log-spaced
checkpoints t (and t = 0) we record ||theta_t - theta_0||_2, the relative kernel change
||K_t - K_0||_F / ||K_0||_F, the relative deviation from the limiting kernel
||K_t - Theta||_F / ||Theta||_F (Theta (x) I_K for K classes), the largest entry deviation
max |K_t - Theta| (compared with lambda_0 / (2 n^2), Theorem 2), lambda_min(K_t), the minimum margin
and the training loss.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from paperkit import check_array, check_choice, check_instance, check_int, check_positive
from scipy.special import logsumexp, softmax

from ntk_divergence.backprop import Net, backward, forward, ntk_gram, numpy_params
from ntk_divergence.models import FCN, ResNet

LOSSES = ("ce", "mse")

__all__ = ["LOSSES", "Trajectory", "log_checkpoints", "loss_grad", "margins", "output_loss", "train_gd"]


@dataclass(frozen=True)
class Trajectory:
    """Traces of one GD run, each ``(k,)`` float64 over ``steps`` (the first checkpoint is t = 0).

    ``n_loss_increases`` counts GD steps whose loss went up (a sign the step is too large for the
    gradient-flow approximation); ``outputs`` is ``(k, n)`` (binary) or ``(k, n, K)``: f_t on the
    training set.
    """

    loss_name: str
    steps: np.ndarray
    param_dist: np.ndarray
    kernel_change: np.ndarray
    kernel_dev: np.ndarray
    kernel_dev_max: np.ndarray
    lambda_min: np.ndarray
    min_margin: np.ndarray
    loss: np.ndarray
    outputs: np.ndarray
    n_loss_increases: int


def log_checkpoints(steps: int, n_checkpoints: int) -> np.ndarray:
    """0 and about ``n_checkpoints`` distinct log-spaced integers in [1, steps], ending at ``steps``."""
    steps = check_int(steps, "steps", low=1)
    n_checkpoints = check_int(n_checkpoints, "n_checkpoints", low=2)
    grid = np.unique(np.round(np.geomspace(1, steps, n_checkpoints)).astype(int))
    return np.concatenate([[0], grid])


def output_loss(f: np.ndarray, y: np.ndarray, loss: str) -> tuple[float, np.ndarray]:
    """``(L, dL/df)`` for outputs ``f (n, K)``; y is ``(n,)`` in {-1, +1} (K = 1) or in {0 .. K-1}."""
    n, k = f.shape
    if k == 1:
        z, yy = f[:, 0], y
        if loss == "ce":
            g = -yy * 0.5 * (1.0 + np.tanh(-0.5 * yy * z))  # -y sigmoid(-y f), overflow-free
            return float(np.logaddexp(0.0, -yy * z).mean()), (g / n)[:, None]
        return float(0.5 * ((z - yy) ** 2).mean()), ((z - yy) / n)[:, None]
    onehot = np.eye(k)[y.astype(int)]
    if loss == "ce":
        value = float((logsumexp(f, axis=1) - f[np.arange(n), y.astype(int)]).mean())
        return value, (softmax(f, axis=1) - onehot) / n
    return float(0.5 * ((f - onehot) ** 2).sum(axis=1).mean()), (f - onehot) / n


def margins(f: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``(n,)`` margins of outputs ``f (n, K)``: y_i f(x_i), or f_{y_i} - max_{a != y_i} f_a for K > 1."""
    n, k = f.shape
    if k == 1:
        out: np.ndarray = y * f[:, 0]
        return out
    yi = y.astype(int)
    own = f[np.arange(n), yi]
    rest = np.where(np.eye(k, dtype=bool)[yi], -np.inf, f)
    result: np.ndarray = own - rest.max(axis=1)
    return result


def loss_grad(
    params: dict[str, np.ndarray], model: Net, X: np.ndarray, y: np.ndarray, loss: str
) -> tuple[float, np.ndarray, dict[str, np.ndarray]]:
    """``(loss, f (n, K), grads)`` of a network at numpy ``params`` by hand-written backpropagation."""
    f, cache = forward(params, model, X)
    value, g = output_loss(f, y, loss)
    return value, f, backward(params, model, cache, g)


def _check_labels(y: np.ndarray, out_dim: int) -> None:
    if out_dim == 1 and not np.all(np.abs(y) == 1):
        raise ValueError("y must hold labels in {-1, +1} for a binary (out_dim = 1) network")
    if out_dim > 1 and not (np.all(y == np.round(y)) and y.min() >= 0 and y.max() < out_dim):
        raise ValueError(f"y must hold class labels in 0 .. {out_dim - 1} for out_dim = {out_dim}")


def train_gd(
    model: Net,
    X: torch.Tensor,
    y: torch.Tensor,
    *,
    loss: str = "ce",
    lr: float = 1.0,
    steps: int = 20_000,
    n_checkpoints: int = 20,
    theta: np.ndarray | None = None,
) -> Trajectory:
    """Train ``model`` in place by full-batch GD from its current parameters (theta_0) and trace it.

    Args:
        model: an :class:`FCN` or :class:`ResNet` (its parameters are theta_0; GD runs in float64 numpy).
        X: ``(n, d)`` inputs; y: ``(n,)`` labels, {-1, +1} for ``out_dim = 1``, 0 .. K-1 for ``out_dim = K``.
        loss: ``"ce"`` or ``"mse"``. lr: step size eta > 0. steps: GD steps S.
        n_checkpoints: log-spaced checkpoints besides t = 0.
        theta: ``(n, n)`` limiting NTK Theta(X, X) (``None``: kernel_dev traces are NaN).
    """
    check_instance(model, "model", (FCN, ResNet))
    check_array(X, "X", ndim=2)
    check_array(y, "y", shape=(X.shape[0],))
    loss = check_choice(loss, "loss", LOSSES)
    lr = check_positive(lr, "lr")
    marks = log_checkpoints(steps, n_checkpoints)
    n, k = X.shape[0], model.out_dim
    if theta is not None:
        theta = np.asarray(check_array(theta, "theta", shape=(n, n)), float)
        theta = theta if k == 1 else np.kron(np.eye(k), theta)
    params = numpy_params(model)
    p0 = {name: v.copy() for name, v in params.items()}
    xn, yn = X.detach().cpu().numpy(), y.detach().cpu().numpy()
    _check_labels(yn, k)
    rows, outs = [], []
    k0: np.ndarray | None = None
    increases, prev, t = 0, float("inf"), 0
    for mark in marks:
        for _ in range(int(mark) - t):  # the GD steps up to the next checkpoint
            value, _, grads = loss_grad(params, model, xn, yn, loss)
            increases += int(value > prev * (1 + 1e-9) + 1e-14)  # round-off at loss ~ 1e-16 is not one
            prev = value
            for name, g in grads.items():
                params[name] -= lr * g
        t = int(mark)
        f, _ = forward(params, model, xn)
        ell, _ = output_loss(f, yn, loss)
        kt = ntk_gram(params, model, xn)
        k0 = kt if k0 is None else k0
        rows.append(_row(params, p0, kt, k0, theta, float(margins(f, yn).min()), ell))
        outs.append(f[:, 0] if k == 1 else f)
    with torch.no_grad():  # the model ends at theta_S, as "in place" promises
        for name, p in model.named_parameters():
            p.copy_(torch.as_tensor(params[name], device=p.device, dtype=p.dtype))
    dist, change, dev, dev_max, lam, margin, ell = np.asarray(rows, dtype=np.float64).T
    ts = marks.astype(np.float64)
    return Trajectory(loss, ts, dist, change, dev, dev_max, lam, margin, ell, np.stack(outs), increases)


def _row(
    params: dict[str, np.ndarray],
    p0: dict[str, np.ndarray],
    k: np.ndarray,
    k0: np.ndarray,
    theta: np.ndarray | None,
    margin: float,
    ell: float,
) -> tuple[float, ...]:
    dist = float(np.sqrt(sum(((params[n] - p0[n]) ** 2).sum() for n in params)))
    change = float(np.linalg.norm(k - k0) / np.linalg.norm(k0))
    if theta is None:
        dev = dev_max = float("nan")
    else:
        dev = float(np.linalg.norm(k - theta) / np.linalg.norm(theta))
        dev_max = float(np.abs(k - theta).max())
    lam = float(np.linalg.eigvalsh(k)[0])
    return (dist, change, dev, dev_max, lam, margin, ell)
