"""Hand-written forward, backward and empirical-NTK Gram of :class:`FCN` and :class:`ResNet` in numpy.

GD needs ~10^5 steps of a tiny network; numpy without autograd costs a few microseconds an op where torch
autograd costs ~1 ms a step here. The tests check every function against autograd / torch.func.

Outputs are always ``(n, K)`` here (K = ``model.out_dim``). The Gram matrix has one row per
(output a, sample i), class-major (row a * n + i): ``(K n, K n)``, which is ``(n, n)`` for K = 1. With
D_r = d f_a(x_i) / d z the backward signal of row r at a layer whose input activations are A, a weight
matrix contributes (D D^T) * (A A^T)[i, j] and a bias beta^2 D D^T; O((K n)^2 m) per layer, the Jacobian
is never materialised.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.special import erf

from ntk_divergence.models import FCN, ResNet

__all__ = ["Net", "backward", "forward", "ntk_gram", "numpy_params"]

Net = FCN | ResNet
Params = dict[str, np.ndarray]


def numpy_params(model: Net) -> Params:
    """Copies of the model's parameters as float64 numpy arrays, by parameter name."""
    return {k: v.detach().cpu().numpy().astype(np.float64, copy=True) for k, v in model.named_parameters()}


def _act(model: Net, z: np.ndarray) -> np.ndarray:
    out: np.ndarray = np.maximum(z, 0.0) if model.activation == "relu" else erf(z)
    return out


def _act_grad(model: Net, z: np.ndarray) -> np.ndarray:
    if model.activation == "relu":
        return (z > 0).astype(z.dtype)
    out: np.ndarray = (2 / np.sqrt(np.pi)) * np.exp(-(z**2))
    return out


def forward(params: Params, model: Net, X: np.ndarray) -> tuple[np.ndarray, dict[str, Any]]:
    """``(f (n, K), cache)``: the outputs and the intermediate arrays :func:`backward` needs."""
    if isinstance(model, ResNet):
        return _resnet_forward(params, model, X)
    return _fcn_forward(params, model, X)


def backward(params: Params, model: Net, cache: dict[str, Any], g: np.ndarray) -> Params:
    """Parameter gradients of sum_{i,a} g_ia f_a(x_i) for ``g = dL/df`` ``(n, K)``."""
    if isinstance(model, ResNet):
        return _resnet_backward(params, model, cache, g)
    return _fcn_backward(params, model, cache, g)


def ntk_gram(params: Params, model: Net, X: np.ndarray) -> np.ndarray:
    """``(K n, K n)`` empirical NTK at numpy ``params`` (class-major rows; ``(n, n)`` for K = 1)."""
    _, cache = forward(params, model, X)
    if isinstance(model, ResNet):
        return _resnet_gram(params, model, cache, X)
    return _fcn_gram(params, model, cache)


def _tile(a: np.ndarray, k: int) -> np.ndarray:
    return a if k == 1 else np.tile(a, (k, k))


def _readout_term(h: np.ndarray, model: Net) -> np.ndarray:
    base = h @ h.T / model.width + model.beta**2
    return base if model.out_dim == 1 else np.kron(np.eye(model.out_dim), base)


# --- FCN -----------------------------------------------------------------------------------------------


def _fcn_forward(params: Params, model: FCN, X: np.ndarray) -> tuple[np.ndarray, dict[str, Any]]:
    m, beta = model.width, model.beta
    acts, pre = [X], []
    for i in range(model.depth):
        z = (1.0 if i == 0 else m**-0.5) * (acts[-1] @ params[f"weights.{i}"].T)
        if beta:
            z = z + beta * params[f"biases.{i}"]
        pre.append(z)
        acts.append(_act(model, z))
    f = acts[-1] @ params["readout"].T / np.sqrt(m)
    if beta:
        f = f + beta * params["out_bias"]
    return f, {"acts": acts, "pre": pre}


def _fcn_backward(params: Params, model: FCN, cache: dict[str, Any], g: np.ndarray) -> Params:
    m, beta = model.width, model.beta
    acts, pre = cache["acts"], cache["pre"]
    grads = {"readout": g.T @ acts[-1] / np.sqrt(m)}
    if beta:
        grads["out_bias"] = beta * g.sum(axis=0)
    da = g @ params["readout"] / np.sqrt(m)
    for i in reversed(range(model.depth)):
        s = 1.0 if i == 0 else m**-0.5
        dz = da * _act_grad(model, pre[i])
        grads[f"weights.{i}"] = s * (dz.T @ acts[i])
        if beta:
            grads[f"biases.{i}"] = beta * dz.sum(axis=0)
        da = s * (dz @ params[f"weights.{i}"])
    return grads


def _fcn_gram(params: Params, model: FCN, cache: dict[str, Any]) -> np.ndarray:
    m, beta, k = model.width, model.beta, model.out_dim
    acts, pre = cache["acts"], cache["pre"]
    n = acts[0].shape[0]
    idx = np.tile(np.arange(n), k)  # row a * n + i -> sample i
    gram = _readout_term(acts[-1], model)
    V = params["readout"] / np.sqrt(m)  # (K, m)
    D = np.repeat(V, n, axis=0) * _act_grad(model, pre[-1])[idx]
    for i in reversed(range(model.depth)):
        s = 1.0 if i == 0 else m**-0.5
        dd = D @ D.T
        gram = gram + s**2 * dd * _tile(acts[i] @ acts[i].T, k) + beta**2 * dd
        if i:
            D = s * (D @ params[f"weights.{i}"]) * _act_grad(model, pre[i - 1])[idx]
    return gram


# --- ResNet --------------------------------------------------------------------------------------------


def _resnet_forward(params: Params, model: ResNet, X: np.ndarray) -> tuple[np.ndarray, dict[str, Any]]:
    s, beta, alpha = model.width**-0.5, model.beta, model.alpha
    h = X @ params["input_weight"].T
    if beta:
        h = h + beta * params["input_bias"]
    hs, us, gs = [], [], []
    for i in range(model.n_blocks):
        u = s * (h @ params[f"inner.{i}"].T)
        if beta:
            u = u + beta * params[f"biases.{i}"]
        g = _act(model, u)
        hs.append(h)
        us.append(u)
        gs.append(g)
        h = h + alpha * s * (g @ params[f"outer.{i}"].T)
    f = s * (h @ params["readout"].T)
    if beta:
        f = f + beta * params["out_bias"]
    return f, {"X": X, "h": hs, "u": us, "g": gs, "out": h}


def _resnet_backward(params: Params, model: ResNet, cache: dict[str, Any], g: np.ndarray) -> Params:
    s, beta, alpha = model.width**-0.5, model.beta, model.alpha
    grads = {"readout": s * (g.T @ cache["out"])}
    if beta:
        grads["out_bias"] = beta * g.sum(axis=0)
    dh = s * (g @ params["readout"])
    for i in reversed(range(model.n_blocks)):
        grads[f"outer.{i}"] = alpha * s * (dh.T @ cache["g"][i])
        du = alpha * s * (dh @ params[f"outer.{i}"]) * _act_grad(model, cache["u"][i])
        grads[f"inner.{i}"] = s * (du.T @ cache["h"][i])
        if beta:
            grads[f"biases.{i}"] = beta * du.sum(axis=0)
        dh = dh + s * (du @ params[f"inner.{i}"])
    grads["input_weight"] = dh.T @ cache["X"]
    if beta:
        grads["input_bias"] = beta * dh.sum(axis=0)
    return grads


def _resnet_gram(params: Params, model: ResNet, cache: dict[str, Any], X: np.ndarray) -> np.ndarray:
    m, beta, alpha, k = model.width, model.beta, model.alpha, model.out_dim
    s, n = m**-0.5, X.shape[0]
    idx = np.tile(np.arange(n), k)
    gram = _readout_term(cache["out"], model)
    delta = np.repeat(s * params["readout"], n, axis=0)  # d f_a / d h^(B+1), the same for every sample
    for i in reversed(range(model.n_blocks)):
        g, h = cache["g"][i], cache["h"][i]
        dd = delta @ delta.T
        gram = gram + (alpha**2 / m) * dd * _tile(g @ g.T, k)
        e = alpha * s * (delta @ params[f"outer.{i}"]) * _act_grad(model, cache["u"][i])[idx]
        ee = e @ e.T
        gram = gram + ee * _tile(h @ h.T / m + beta**2, k)
        delta = delta + s * (e @ params[f"inner.{i}"])
    return gram + (delta @ delta.T) * _tile(X @ X.T + beta**2, k)
