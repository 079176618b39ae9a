"""The networks of :mod:`ntk_divergence.kernels` as torch modules (NTK parameterisation).

Every weight and bias is N(0, 1) at initialisation (drawn from an explicit ``torch.Generator``); a matrix
that reads a width-m layer is divided by sqrt(m); biases are multiplied by ``bias`` (0 drops them). The
output is ``(n,)`` for input ``(n, d)`` when ``out_dim == 1`` (binary labels) and ``(n, out_dim)`` else.

- ``FCN(d_in, width, depth)``: h^(1) = W^(1) x + beta b^(1); h^(l+1) = W^(l+1) sigma(h^(l)) / sqrt(m) +
  beta b^(l+1); f = V sigma(h^(L)) / sqrt(m) + beta c.
- ``ResNet(d_in, width, n_blocks, alpha)``: an input layer h^(1) = W^(0) x + beta b^(0), then residual
  blocks h^(l+1) = h^(l) + (alpha / sqrt(m)) V^(l) sigma(W^(l) h^(l) / sqrt(m) + beta b^(l)) and a linear
  readout f = V h^(B+1) / sqrt(m) + beta c (the spec's "best reading" of the paper's Sec. 3 ResNet).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from paperkit import check_choice, check_int, check_number
from torch import nn

from ntk_divergence.kernels import ACTIVATIONS

__all__ = ["FCN", "ResNet"]

_ACT = {"relu": torch.relu, "erf": torch.erf}


def _normal_factory(gen: torch.Generator, device: str | torch.device, dtype: torch.dtype):  # type: ignore[no-untyped-def]
    def normal(*shape: int) -> nn.Parameter:
        return nn.Parameter(torch.randn(*shape, generator=gen, device=device, dtype=dtype))

    return normal


def _common(
    bias: float,
    activation: str,
    out_dim: int,
    generator: torch.Generator | None,
    device: str | torch.device,
    dtype: torch.dtype,
) -> tuple[float, str, int, Callable[..., nn.Parameter]]:
    """The arguments FCN and ResNet share, checked, and the parameter factory drawing from ``generator``
    (a fresh seed-0 one on ``device`` when None)."""
    beta = check_number(bias, "bias", low=0.0)
    act = check_choice(activation, "activation", ACTIVATIONS)
    out = check_int(out_dim, "out_dim", low=1)
    gen = generator if generator is not None else torch.Generator(device=device).manual_seed(0)
    return beta, act, out, _normal_factory(gen, device, dtype)


class FCN(nn.Module):
    """Fully connected network f(x; theta) with ``depth`` hidden layers of ``width`` units.

    Args:
        d_in: input dimension d. width: m >= 1. depth: L >= 1 hidden layers.
        bias: beta >= 0, bias scale (0: no bias parameters).
        activation: one of :data:`ntk_divergence.kernels.ACTIVATIONS`.
        out_dim: K >= 1 outputs (1: binary, ``(n,)`` output; K > 1: softmax classes, ``(n, K)``).
        generator: the torch.Generator that draws theta_0 (on ``device``); ``None`` uses a fresh seed-0 one.
        device, dtype: where and in which precision the parameters live (float64 by default: kernels).
    """

    def __init__(
        self,
        d_in: int,
        width: int,
        depth: int = 1,
        *,
        bias: float = 1.0,
        activation: str = "relu",
        out_dim: int = 1,
        generator: torch.Generator | None = None,
        device: str | torch.device = "cpu",
        dtype: torch.dtype = torch.float64,
    ) -> None:
        super().__init__()
        d_in, self.width = check_int(d_in, "d_in", low=1), check_int(width, "width", low=1)
        self.depth = check_int(depth, "depth", low=1)
        self.beta, self.activation, self.out_dim, normal = _common(
            bias, activation, out_dim, generator, device, dtype
        )
        dims = [d_in] + [self.width] * self.depth
        self.weights = nn.ParameterList([normal(dims[i + 1], dims[i]) for i in range(self.depth)])
        self.readout = normal(self.out_dim, self.width)
        self.biases = nn.ParameterList([normal(self.width) for _ in range(self.depth)] if self.beta else [])
        self.out_bias = normal(self.out_dim) if self.beta else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        act = _ACT[self.activation]
        h = x
        for i, w in enumerate(self.weights):
            scale = 1.0 if i == 0 else 1.0 / math.sqrt(self.width)
            h = scale * (h @ w.T)
            if self.beta:
                h = h + self.beta * self.biases[i]
            h = act(h)
        out = (h @ self.readout.T) / math.sqrt(self.width)
        if self.out_bias is not None:
            out = out + self.beta * self.out_bias
        return out.squeeze(-1) if self.out_dim == 1 else out


class ResNet(nn.Module):
    """Residual network: an input layer, ``n_blocks`` residual blocks of ``width`` units, a linear readout.

    Args:
        d_in: input dimension d. width: m >= 1. n_blocks: B >= 1 residual blocks.
        alpha: alpha >= 0, the residual-branch scale (0: a linear network of the input layer).
        bias, activation, out_dim, generator, device, dtype: as in :class:`FCN`.
    """

    def __init__(
        self,
        d_in: int,
        width: int,
        n_blocks: int = 1,
        *,
        alpha: float = 1.0,
        bias: float = 1.0,
        activation: str = "relu",
        out_dim: int = 1,
        generator: torch.Generator | None = None,
        device: str | torch.device = "cpu",
        dtype: torch.dtype = torch.float64,
    ) -> None:
        super().__init__()
        d_in, self.width = check_int(d_in, "d_in", low=1), check_int(width, "width", low=1)
        self.n_blocks = check_int(n_blocks, "n_blocks", low=1)
        self.alpha = check_number(alpha, "alpha", low=0.0)
        self.beta, self.activation, self.out_dim, normal = _common(
            bias, activation, out_dim, generator, device, dtype
        )
        m, B = self.width, self.n_blocks
        self.input_weight = normal(m, d_in)
        self.inner = nn.ParameterList([normal(m, m) for _ in range(B)])  # W^(l)
        self.outer = nn.ParameterList([normal(m, m) for _ in range(B)])  # V^(l)
        self.readout = normal(self.out_dim, m)
        self.input_bias = normal(m) if self.beta else None
        self.biases = nn.ParameterList([normal(m) for _ in range(B)] if self.beta else [])
        self.out_bias = normal(self.out_dim) if self.beta else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        act, s = _ACT[self.activation], 1.0 / math.sqrt(self.width)
        h = x @ self.input_weight.T
        if self.input_bias is not None:
            h = h + self.beta * self.input_bias
        for i in range(self.n_blocks):
            u = s * (h @ self.inner[i].T)
            if self.beta:
                u = u + self.beta * self.biases[i]
            h = h + self.alpha * s * (act(u) @ self.outer[i].T)
        out = s * (h @ self.readout.T)
        if self.out_bias is not None:
            out = out + self.beta * self.out_bias
        return out.squeeze(-1) if self.out_dim == 1 else out
