"""Analytic (infinite-width) NTKs of fully connected and residual networks with biases (NTK parameterisation).

Network (all weights and biases i.i.d. N(0, 1); ``beta`` scales every bias, ``beta = 0`` drops them)::

    h^(1) = W^(1) x + beta b^(1)
    h^(l+1) = (1/sqrt(m)) W^(l+1) sigma(h^(l)) + beta b^(l+1),     l = 1 .. L-1
    f(x) = (1/sqrt(m)) v . sigma(h^(L)) + beta b_out

Recursion (paper Sec. 3; the "+ beta^2" terms are the biases, and they are what makes the kernel strictly
positive definite on distinct inputs that are not on a sphere)::

    Sigma^(1)(x, x') = x.x' + beta^2,          Theta^(1) = Sigma^(1)
    Sigma^(l+1) = E[sigma(u) sigma(v)] + beta^2,  Sigmadot^(l+1) = E[sigma'(u) sigma'(v)],
        (u, v) ~ N(0, [[Sigma^(l)(x,x), Sigma^(l)(x,x')], [., Sigma^(l)(x',x')]])
    Theta^(l+1) = Theta^(l) * Sigmadot^(l+1) + Sigma^(l+1)

and the network's NTK is Theta^(L+1). Gaussian expectations in closed form:

- ReLU (arc-cosine kernels, Cho & Saul 2009), with rho = c / sqrt(ab), phi = arccos rho:
  E[sigma sigma] = sqrt(ab) (sin phi + (pi - phi) cos phi) / (2 pi),  E[sigma' sigma'] = (pi - phi) / (2 pi).
- erf (Williams 1997): E[erf erf] = (2/pi) arcsin(2c / sqrt((1+2a)(1+2b))),
  E[erf' erf'] = (4/pi) / sqrt((1+2a)(1+2b) - 4c^2).

ResNet (:class:`ntk_divergence.models.ResNet`; input layer, B blocks h <- h + (alpha/sqrt(m)) V sigma(u),
u = W h / sqrt(m) + beta b, linear readout). With C^(l) the covariance of the residual stream h^(l),
Q^(l) = C^(l) + beta^2 that of u, E_l = E_Q[sigma sigma], Edot_l = E_Q[sigma' sigma'] and P^(l) the
kernel of the backward signal df/dh^(l) (the gradient-independence limit, checked by Monte Carlo)::

    C^(1) = x.x' + beta^2,     C^(l+1) = C^(l) + alpha^2 E_l,     P^(B+1) = 1,
    P^(l) = P^(l+1) (1 + alpha^2 Edot_l),
    Theta = C^(B+1) + beta^2 + sum_l alpha^2 P^(l+1) (E_l + Edot_l Q^(l)) + P^(1) C^(1)

(readout; V^(l); W^(l) and b^(l); the input layer). The NNGP is C^(B+1) + beta^2. Every term is a
product and sum of PD kernels containing the strictly PD readout/input terms, hence strictly PD with biases.

Everything is float64 numpy; cost O(n n2 L).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from paperkit import check_array, check_choice, check_int, check_number

ACTIVATIONS = ("relu", "erf")

__all__ = ["ACTIVATIONS", "erf_expectations", "fc_ntk", "relu_expectations", "resnet_ntk"]

Expectations = Callable[[np.ndarray, np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]


def relu_expectations(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(E[relu(u) relu(v)], E[relu'(u) relu'(v)])`` for (u, v) with variances a, b and covariance c.

    Arrays broadcast; ``a, b > 0``. The correlation is clipped to [-1, 1] (round-off can push it out).
    """
    a, b, c = np.asarray(a, float), np.asarray(b, float), np.asarray(c, float)
    scale = np.sqrt(a * b)
    rho = np.clip(c / scale, -1.0, 1.0)
    phi = np.arccos(rho)
    e_sigma = scale * (np.sin(phi) + (np.pi - phi) * rho) / (2 * np.pi)
    e_dot = (np.pi - phi) / (2 * np.pi)
    return e_sigma, e_dot


def erf_expectations(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(E[erf(u) erf(v)], E[erf'(u) erf'(v)])`` for (u, v) with variances a, b and covariance c."""
    a, b, c = np.asarray(a, float), np.asarray(b, float), np.asarray(c, float)
    q = (1 + 2 * a) * (1 + 2 * b)
    e_sigma = (2 / np.pi) * np.arcsin(np.clip(2 * c / np.sqrt(q), -1.0, 1.0))
    e_dot = (4 / np.pi) / np.sqrt(np.maximum(q - 4 * c**2, 1e-300))
    return e_sigma, e_dot


_EXPECTATIONS: dict[str, Expectations] = {"relu": relu_expectations, "erf": erf_expectations}


def _inputs(X: np.ndarray, X2: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    X = np.asarray(check_array(X, "X", ndim=2, kind="fiu"), dtype=np.float64)
    X2 = X if X2 is None else np.asarray(check_array(X2, "X2", shape=(None, X.shape[1]), kind="fiu"), float)
    return X, X2


def fc_ntk(
    X: np.ndarray,
    X2: np.ndarray | None = None,
    *,
    depth: int = 1,
    bias: float = 1.0,
    activation: str = "relu",
) -> tuple[np.ndarray, np.ndarray]:
    """``(Theta, Sigma)``: the limiting NTK Theta^(L+1)(X, X2) and the NNGP Sigma^(L+1)(X, X2).

    Args:
        X: ``(n, d)`` inputs. X2: ``(n2, d)`` inputs (``None``: X).
        depth: L >= 1, the number of hidden layers.
        bias: beta >= 0, the bias scale (0: a network without biases).
        activation: one of :data:`ACTIVATIONS`.

    Returns:
        two ``(n, n2)`` float64 arrays.
    """
    X, X2 = _inputs(X, X2)
    depth = check_int(depth, "depth", low=1)
    beta2 = check_number(bias, "bias", low=0.0) ** 2
    expect = _EXPECTATIONS[check_choice(activation, "activation", ACTIVATIONS)]
    # Diagonals of Sigma^(l) on X and X2 are carried alongside the cross term.
    s_x = np.einsum("ij,ij->i", X, X) + beta2
    s_y = np.einsum("ij,ij->i", X2, X2) + beta2
    sigma = X @ X2.T + beta2
    theta = sigma.copy()
    for _ in range(depth):
        e_xy, dot_xy = expect(s_x[:, None], s_y[None, :], sigma)
        e_x, _ = expect(s_x, s_x, s_x)
        e_y, _ = expect(s_y, s_y, s_y)
        sigma = e_xy + beta2
        theta = theta * dot_xy + sigma
        s_x, s_y = e_x + beta2, e_y + beta2
    return theta, sigma


def resnet_ntk(
    X: np.ndarray,
    X2: np.ndarray | None = None,
    *,
    n_blocks: int = 1,
    alpha: float = 1.0,
    bias: float = 1.0,
    activation: str = "relu",
) -> tuple[np.ndarray, np.ndarray]:
    """``(Theta, Sigma)``: the limiting NTK and NNGP of :class:`~ntk_divergence.models.ResNet` on X x X2.

    Args:
        X: ``(n, d)`` inputs. X2: ``(n2, d)`` inputs (``None``: X).
        n_blocks: B >= 1 residual blocks. alpha: alpha >= 0, the residual-branch scale.
        bias: beta >= 0, the bias scale. activation: one of :data:`ACTIVATIONS`.

    Returns:
        two ``(n, n2)`` float64 arrays.
    """
    X, X2 = _inputs(X, X2)
    n_blocks = check_int(n_blocks, "n_blocks", low=1)
    a2 = check_number(alpha, "alpha", low=0.0) ** 2
    beta2 = check_number(bias, "bias", low=0.0) ** 2
    expect = _EXPECTATIONS[check_choice(activation, "activation", ACTIVATIONS)]
    c_x = np.einsum("ij,ij->i", X, X) + beta2
    c_y = np.einsum("ij,ij->i", X2, X2) + beta2
    c_in = X @ X2.T + beta2
    c = c_in.copy()
    blocks = []  # (Q, E, Edot) on X x X2, per block, for the backward pass
    for _ in range(n_blocks):
        q_x, q_y, q = c_x + beta2, c_y + beta2, c + beta2
        e, e_dot = expect(q_x[:, None], q_y[None, :], q)
        blocks.append((q, e, e_dot))
        c = c + a2 * e
        c_x = c_x + a2 * expect(q_x, q_x, q_x)[0]
        c_y = c_y + a2 * expect(q_y, q_y, q_y)[0]
    theta, p = c + beta2, np.ones_like(c)
    for q, e, e_dot in reversed(blocks):
        theta = theta + a2 * p * (e + e_dot * q)
        p = p * (1 + a2 * e_dot)
    return theta + p * c_in, c + beta2
