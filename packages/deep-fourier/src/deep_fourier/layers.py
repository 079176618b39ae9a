"""Deep Fourier features (Lewandowski, Schuurmans, Machado, ICLR 2025) and the concatenated baselines.

The DFF activation replaces a unit's nonlinearity by the pair of a sine and a cosine of the *same*
pre-activation, concatenated (abstract: "the concatenation of a sine and cosine in every layer"):

    phi(z) = [ sin(omega z) ; cos(omega z) ]          z in R^k  ->  phi(z) in R^{2k}

concatenated along the feature axis (dim 1: features of an MLP, channels of a CNN). Exact properties
(tested): per unit, (d sin z/dz)^2 + (d cos z/dz)^2 = 1, so the Jacobian never vanishes ("no dead units");
and min(|sin z|, |cos z|) <= 1/sqrt(2), so at every z one branch has slope >= 1/sqrt(2) >= its curvature
("adaptive linearity": one branch is near-linear wherever the other saturates).

Width convention (spec reading): a DFF layer with ``n`` output *features* has ``k = n/2`` pre-activations
(``width_mode="match_features"``, default: the next layer's parameter count equals the ReLU net's), or
``k = n`` (``"match_units"``: twice the features, as in the Plasticine library's DFF layer).
CReLU ``[relu(z); relu(-z)]`` (Shang et al. 2016) follows the same convention.
"""

from __future__ import annotations

import torch
from paperkit import check_choice, check_int, check_number
from torch import nn

__all__ = ["WIDTH_MODES", "CReLU", "DFFConv2d", "DFFLinear", "FourierActivation", "Sine", "pre_activations"]

WIDTH_MODES = ("match_features", "match_units")


class FourierActivation(nn.Module):
    """``[sin(omega z); cos(omega z)]`` along ``dim`` (1 by default): the width doubles."""

    def __init__(self, omega: float = 1.0, dim: int = 1) -> None:
        super().__init__()
        self.omega = check_number(omega, "omega", low=0.0, low_open=True)
        self.dim = check_int(dim, "dim")

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        if z.dtype in (torch.float16, torch.bfloat16) and bool((z.abs() * self.omega > 1e3).any()):
            # sin/cos of |z| > 1e3 in half precision keep almost no significant digits
            import warnings

            warnings.warn("FourierActivation: |omega z| > 1e3 in half precision", stacklevel=2)
        wz = z * self.omega
        return torch.cat([torch.sin(wz), torch.cos(wz)], dim=self.dim)

    def extra_repr(self) -> str:
        return f"omega={self.omega}, dim={self.dim}"


class CReLU(nn.Module):
    """``[relu(z); relu(-z)]`` along ``dim``: the width doubles."""

    def __init__(self, dim: int = 1) -> None:
        super().__init__()
        self.dim = check_int(dim, "dim")

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        return torch.cat([torch.relu(z), torch.relu(-z)], dim=self.dim)


class Sine(nn.Module):
    """``sin(omega z)`` alone (the ablation without the cosine partner)."""

    def __init__(self, omega: float = 1.0) -> None:
        super().__init__()
        self.omega = check_number(omega, "omega", low=0.0, low_open=True)

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        return torch.sin(self.omega * z)


def pre_activations(features: int, width_mode: str = "match_features", *, name: str = "width") -> int:
    """The number of pre-activations a concatenated layer needs to output ``features`` features.

    ``match_features``: ``features / 2`` (an odd ``features`` is refused, never rounded);
    ``match_units``: ``features`` (the layer then outputs ``2 * features``).
    """
    features = check_int(features, name, low=1)
    width_mode = check_choice(width_mode, "width_mode", WIDTH_MODES)
    if width_mode == "match_units":
        return features
    if features % 2:
        raise ValueError(
            f"{name} must be even for width_mode='match_features' (sine/cosine pairs), got {features}"
        )
    return features // 2


class DFFLinear(nn.Module):
    """``Linear(in_features, k)`` then :class:`FourierActivation`: outputs ``out_features`` features in
    ``match_features`` mode (``k = out_features / 2``), ``2 * out_features`` in ``match_units`` mode."""

    def __init__(
        self, in_features: int, out_features: int, *, width_mode: str = "match_features", omega: float = 1.0
    ) -> None:
        super().__init__()
        k = pre_activations(out_features, width_mode, name="out_features")
        self.linear = nn.Linear(check_int(in_features, "in_features", low=1), k)
        self.act = FourierActivation(omega, dim=-1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.act(self.linear(x))


class DFFConv2d(nn.Module):
    """``Conv2d(in_channels, k, kernel_size, padding)`` then :class:`FourierActivation` on channels."""

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: int = 3,
        *,
        padding: int = 1,
        width_mode: str = "match_features",
        omega: float = 1.0,
    ) -> None:
        super().__init__()
        k = pre_activations(out_channels, width_mode, name="out_channels")
        self.conv = nn.Conv2d(
            check_int(in_channels, "in_channels", low=1),
            k,
            check_int(kernel_size, "kernel_size", low=1),
            padding=check_int(padding, "padding", low=0),
        )
        self.act = FourierActivation(omega, dim=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.act(self.conv(x))
