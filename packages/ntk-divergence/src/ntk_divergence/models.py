"""The fully connected network of :mod:`ntk_divergence.kernels` as a torch module (NTK parameterisation).

``FCN(d_in, width, depth, bias=1.0, activation="relu")``: every weight and bias is N(0, 1) at
initialisation (drawn from an explicit ``torch.Generator``); layer l > 1 and the readout divide by
sqrt(width); biases are multiplied by ``bias`` (0 drops them). The output is ``(n,)`` for input ``(n, d)``.
"""

from __future__ import annotations

import math

import torch
from paperkit import check_choice, check_int, check_number
from torch import nn

from ntk_divergence.kernels import ACTIVATIONS

__all__ = ["FCN"]

_ACT = {"relu": torch.relu, "erf": torch.erf}


class FCN(nn.Module):
    """Fully connected network f(x; theta) with ``depth`` hidden layers of ``width`` units.

    Args:
        d_in: input dimension d. width: m >= 1. depth: L >= 1 hidden layers.
        bias: beta >= 0, bias scale (0: no bias parameters).
        activation: one of :data:`ntk_divergence.kernels.ACTIVATIONS`.
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
        generator: torch.Generator | None = None,
        device: str | torch.device = "cpu",
        dtype: torch.dtype = torch.float64,
    ) -> None:
        super().__init__()
        d_in = check_int(d_in, "d_in", low=1)
        self.width = check_int(width, "width", low=1)
        self.depth = check_int(depth, "depth", low=1)
        self.beta = check_number(bias, "bias", low=0.0)
        self.activation = check_choice(activation, "activation", ACTIVATIONS)
        gen = generator if generator is not None else torch.Generator(device=device).manual_seed(0)

        def normal(*shape: int) -> nn.Parameter:
            return nn.Parameter(torch.randn(*shape, generator=gen, device=device, dtype=dtype))

        dims = [d_in] + [self.width] * self.depth
        self.weights = nn.ParameterList([normal(dims[i + 1], dims[i]) for i in range(self.depth)])
        self.readout = normal(self.width)
        self.biases = nn.ParameterList([normal(self.width) for _ in range(self.depth)] if self.beta else [])
        self.out_bias = normal(1) if self.beta else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        act = _ACT[self.activation]
        h = x
        for i, w in enumerate(self.weights):
            scale = 1.0 if i == 0 else 1.0 / math.sqrt(self.width)
            h = scale * (h @ w.T)
            if self.beta:
                h = h + self.beta * self.biases[i]
            h = act(h)
        out = (h @ self.readout) / math.sqrt(self.width)
        if self.out_bias is not None:
            out = out + self.beta * self.out_bias
        return out
