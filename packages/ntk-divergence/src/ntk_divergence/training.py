"""Full-batch gradient descent (the paper's gradient flow, small step) with the traces the claims need.

Losses on labels y in {-1, +1} (n training points):

- ``"ce"``:  L(theta) = (1/n) sum_i log(1 + exp(-y_i f(x_i)))   (binary cross-entropy, as softplus)
- ``"mse"``: L(theta) = (1/n) sum_i (f(x_i) - y_i)^2 / 2          (the lazy-regime contrast)

At log-spaced checkpoints t (and t = 0) we record ||theta_t - theta_0||_2, the relative kernel change
||K_t - K_0||_F / ||K_0||_F, the relative deviation from the limiting kernel ||K_t - Theta||_F / ||Theta||_F,
the largest entry deviation max_ij |K_t - Theta|_ij (compared with lambda_0 / (2 n^2), Theorem 2),
lambda_min(K_t), the minimum margin min_i y_i f_t(x_i) and the training loss.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from paperkit import check_array, check_choice, check_instance, check_int, check_positive
from torch.nn.functional import softplus

from ntk_divergence.models import FCN

LOSSES = ("ce", "mse")

__all__ = [
    "LOSSES",
    "Trajectory",
    "fcn_loss_grad",
    "fcn_ntk_gram",
    "log_checkpoints",
    "loss_value",
    "train_gd",
]


@dataclass(frozen=True)
class Trajectory:
    """Traces of one GD run, each ``(k,)`` float64 over ``steps`` (the first checkpoint is t = 0).

    ``n_loss_increases`` counts GD steps whose loss went up (a sign the step is too large for the
    gradient-flow approximation); ``outputs`` is ``(k, n)``: f_t on the training set.
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


def loss_value(f: torch.Tensor, y: torch.Tensor, loss: str) -> torch.Tensor:
    """The mean training loss of outputs ``f`` (n,) on labels ``y`` (n,) in {-1, +1}."""
    if loss == "ce":
        return softplus(-y * f).mean()
    return 0.5 * ((f - y) ** 2).mean()


def _forward(
    params: dict[str, np.ndarray], model: FCN, X: np.ndarray
) -> tuple[list[np.ndarray], list[np.ndarray], np.ndarray]:
    """(activations a_0 = X .. a_L, pre-activations z_1 .. z_L, f) of an FCN at numpy params."""
    m, beta = model.width, model.beta
    acts, pre = [X], []
    for i in range(model.depth):
        z = (1.0 if i == 0 else m**-0.5) * (acts[-1] @ params[f"weights.{i}"].T)
        if beta:
            z = z + beta * params[f"biases.{i}"]
        pre.append(z)
        acts.append(np.maximum(z, 0.0) if model.activation == "relu" else _erf(z))
    f = acts[-1] @ params["readout"] / np.sqrt(m)
    if beta:
        f = f + beta * params["out_bias"][0]
    return acts, pre, f


def _act_grad(model: FCN, z: np.ndarray) -> np.ndarray:
    if model.activation == "relu":
        return (z > 0).astype(z.dtype)
    out: np.ndarray = (2 / np.sqrt(np.pi)) * np.exp(-(z**2))
    return out


def fcn_ntk_gram(params: dict[str, np.ndarray], model: FCN, X: np.ndarray) -> np.ndarray:
    """``(n, n)`` empirical NTK of an :class:`FCN` at numpy ``params``, from the hand-written Jacobian.

    With D_i = d f / d z_i per sample (n, m) and a_i the activations, the Gram matrix is
    sum_i s_i^2 (D_i D_i^T) * (a_{i-1} a_{i-1}^T) + beta^2 D_i D_i^T, plus a_L a_L^T / m + beta^2 from the
    readout; O(n^2 m L) without materialising the Jacobian. Checked against torch.func in the tests.
    """
    m, beta = model.width, model.beta
    acts, pre, _ = _forward(params, model, X)
    gram = acts[-1] @ acts[-1].T / m + beta**2
    D = (params["readout"] / np.sqrt(m)) * _act_grad(model, pre[-1])
    for i in reversed(range(model.depth)):
        s = 1.0 if i == 0 else m**-0.5
        dd = D @ D.T
        gram = gram + s**2 * dd * (acts[i] @ acts[i].T) + beta**2 * dd
        if i:
            D = s * (D @ params[f"weights.{i}"]) * _act_grad(model, pre[i - 1])
    return gram


def fcn_loss_grad(
    params: dict[str, np.ndarray], model: FCN, X: np.ndarray, y: np.ndarray, loss: str
) -> tuple[float, np.ndarray, dict[str, np.ndarray]]:
    """``(loss, f, grads)`` of an :class:`FCN` at numpy ``params`` by hand-written backpropagation.

    GD needs ~10^5 steps of a tiny network; numpy without autograd costs a few microseconds an op where
    torch autograd costs ~1 ms a step here. ``tests/test_training.py`` checks it against autograd.
    """
    m, beta, n = model.width, model.beta, X.shape[0]
    acts, pre, f = _forward(params, model, X)
    if loss == "ce":
        value = float(np.logaddexp(0.0, -y * f).mean())
        g = -y * _sigmoid(-y * f) / n
    else:
        value = float(0.5 * ((f - y) ** 2).mean())
        g = (f - y) / n
    grads = {"readout": acts[-1].T @ g / np.sqrt(m)}
    if beta:
        grads["out_bias"] = np.array([beta * g.sum()])
    da = np.outer(g, params["readout"]) / np.sqrt(m)
    for i in reversed(range(model.depth)):
        s = 1.0 if i == 0 else m**-0.5
        dz = da * _act_grad(model, pre[i])
        grads[f"weights.{i}"] = s * (dz.T @ acts[i])
        if beta:
            grads[f"biases.{i}"] = beta * dz.sum(axis=0)
        da = s * (dz @ params[f"weights.{i}"])
    return value, f, grads


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * z))  # overflow-free logistic


def _erf(z: np.ndarray) -> np.ndarray:
    from scipy.special import erf

    out: np.ndarray = erf(z)
    return out


def train_gd(
    model: FCN,
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
        model: an :class:`FCN` (its parameters are theta_0; GD runs in float64 numpy on the CPU).
        X: ``(n, d)`` inputs; y: ``(n,)`` labels in {-1, +1}.
        loss: ``"ce"`` or ``"mse"``. lr: step size eta > 0. steps: GD steps S.
        n_checkpoints: log-spaced checkpoints besides t = 0.
        theta: ``(n, n)`` limiting NTK Theta(X, X) (``None``: kernel_dev traces are NaN).
    """
    check_instance(model, "model", FCN)
    check_array(X, "X", ndim=2)
    check_array(y, "y", shape=(X.shape[0],))
    loss = check_choice(loss, "loss", LOSSES)
    lr = check_positive(lr, "lr")
    marks = log_checkpoints(steps, n_checkpoints)
    mark_set = frozenset(int(m) for m in marks)
    theta = (
        None
        if theta is None
        else np.asarray(check_array(theta, "theta", shape=(X.shape[0], X.shape[0])), float)
    )
    params = {k: v.detach().cpu().numpy().copy() for k, v in model.named_parameters()}
    p0 = {k: v.copy() for k, v in params.items()}
    xn, yn = X.detach().cpu().numpy(), y.detach().cpu().numpy()
    rows: list[tuple[float, ...]] = []
    outs: list[np.ndarray] = []
    k0: np.ndarray | None = None
    increases, prev = 0, float("inf")
    for t in range(int(marks[-1]) + 1):
        if t in mark_set:
            ell, f, _ = fcn_loss_grad(params, model, xn, yn, loss)
            k = fcn_ntk_gram(params, model, xn)
            k0 = k if k0 is None else k0
            rows.append(_row(params, p0, f, k, k0, theta, yn, ell))
            outs.append(f)
        if t == marks[-1]:
            break
        value, _, grads = fcn_loss_grad(params, model, xn, yn, loss)
        increases += int(value > prev * (1 + 1e-9) + 1e-14)  # round-off at loss ~ 1e-16 is not an increase
        prev = value
        for name, g in grads.items():
            params[name] -= lr * g
    with torch.no_grad():  # the model ends at theta_S, as "in place" promises
        for name, p in model.named_parameters():
            p.copy_(torch.as_tensor(params[name], device=p.device, dtype=p.dtype))
    dist, change, dev, dev_max, lam, margin, ell = np.asarray(rows, dtype=np.float64).T
    ts = marks.astype(np.float64)
    return Trajectory(loss, ts, dist, change, dev, dev_max, lam, margin, ell, np.stack(outs), increases)


def _row(
    params: dict[str, np.ndarray],
    p0: dict[str, np.ndarray],
    f: np.ndarray,
    k: np.ndarray,
    k0: np.ndarray,
    theta: np.ndarray | None,
    y: np.ndarray,
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
    return (dist, change, dev, dev_max, lam, float((y * f).min()), ell)
