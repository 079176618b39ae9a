"""The SimSiam-style predictor head h_l on the adversarial features (official ``loss.py``, ``AlignLoss``):

    h(z) = W_2 ReLU(BN1d(W_1 z)) + b_2,    W_1: (d * ratio, d) without bias,  W_2: (d, d * ratio)

``ratio = 0.25`` (``--pred_dim_ratio``). One predictor per tapped layer, applied to ``z_adv`` only
(``is_use_predictor_xx=True``), trained with the network by the same optimiser.
"""

from __future__ import annotations

from collections.abc import Mapping

import torch
from paperkit.validation import check_int, check_number, check_seed
from paperkit.vision.common import as_device
from torch import nn

__all__ = ["Predictor", "head", "predictors"]


class Predictor(nn.Sequential):
    """``h: (batch, dim) -> (batch, dim)``; in train mode it needs ``batch >= 2`` (BatchNorm1d)."""

    def __init__(self, dim: int, ratio: float = 0.25) -> None:
        dim = check_int(dim, "dim", low=1)
        ratio = check_number(ratio, "ratio", low=0.0, high=1.0, low_open=True)
        hidden = max(1, int(dim * ratio))
        super().__init__(
            nn.Linear(dim, hidden, bias=False), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Linear(hidden, dim)
        )

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        dim = self[0].in_features
        if z.ndim != 2 or z.shape[1] != dim:
            raise ValueError(f"z must be a (batch, {dim}) tensor, got shape {tuple(z.shape)}")
        if self.training and z.shape[0] < 2:
            raise ValueError(
                f"the predictor needs a batch of at least 2 in train mode (BatchNorm1d), got {z.shape[0]}"
            )
        out: torch.Tensor = super().forward(z)
        return out


def _key(layer: str) -> str:
    return layer.replace(".", "__")  # ModuleDict keys cannot hold dots


def predictors(
    dims: Mapping[str, int], *, ratio: float = 0.25, seed: int = 0, device: str | torch.device = "cpu"
) -> nn.ModuleDict:
    """``{layer: Predictor(dims[layer], ratio)}`` (keys with ``.`` replaced by ``__``), seeded init."""
    if not isinstance(dims, Mapping) or not dims:
        raise TypeError(f"dims must be a non-empty mapping of layer name -> feature size, got {dims!r}")
    for k in dims:
        if not isinstance(k, str) or not k:
            raise TypeError(f"dims keys must be non-empty layer names (str), got {k!r}")
    dev = as_device(device)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(check_seed(seed))
        heads = nn.ModuleDict(
            {_key(k): Predictor(check_int(d, f"dims[{k!r}]", low=1), ratio) for k, d in dims.items()}
        )
    return heads.to(dev)


def head(heads: nn.ModuleDict, layer: str) -> nn.Module:
    """The predictor of ``layer`` in a :func:`predictors` dict."""
    return heads[_key(layer)]
