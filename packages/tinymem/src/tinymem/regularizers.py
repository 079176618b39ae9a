"""Train-time regularizers: spectral-norm penalty, loss truncation, example-tied dropout."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import torch
from paperkit.validation import check_probability

from tinymem.models import mlp_layers


def spectral_norm(
    weight: torch.Tensor, *, n_iter: int = 20, generator: torch.Generator | None = None
) -> torch.Tensor:
    """Largest singular value of a matrix by power iteration; differentiable as ``uᵀ W v`` (u, v fixed).

    Args:
        weight: (m, n) float. n_iter: power iterations from a seeded random start. Returns: () tensor.
    """
    if weight.ndim != 2:
        raise ValueError(f"weight must be a matrix, got shape {tuple(weight.shape)}")
    with torch.no_grad():
        w = weight.detach()
        v = torch.randn(w.shape[1], generator=generator, dtype=w.dtype).to(w.device)
        v = v / v.norm()
        u = w @ v
        for _ in range(n_iter):
            u = w @ v
            u = u / u.norm().clamp_min(1e-12)
            v = w.T @ u
            v = v / v.norm().clamp_min(1e-12)
    return u @ weight @ v


def spectral_norm_penalty(model: torch.nn.Module, *, n_iter: int = 20, seed: int = 0) -> torch.Tensor:
    """Σ over every 2-D weight of the transformer blocks (attention + MLP) of its largest singular value."""
    gen = torch.Generator().manual_seed(seed)
    terms = [
        spectral_norm(p, n_iter=n_iter, generator=gen)
        for name, p in model.named_parameters()
        if p.ndim == 2 and p.requires_grad and (".h." in name or "layers." in name)
    ]
    if not terms:
        raise ValueError("the model has no 2-D weights inside its transformer blocks")
    return torch.stack(terms).sum()


@dataclass(frozen=True)
class LossTruncation:
    """Drop the ⌊drop_frac·B⌋ highest-loss examples of each batch (Kang & Hashimoto, ``LossDropper``)."""

    drop_frac: float

    def __post_init__(self) -> None:
        check_probability(self.drop_frac, "drop_frac", allow_one=False)

    def __call__(self, losses: torch.Tensor) -> torch.Tensor:
        """(B,) per-example losses -> their mean over the kept examples (differentiable)."""
        n_drop = math.floor(self.drop_frac * losses.shape[0])
        if n_drop == 0:
            return losses.mean()
        keep = torch.argsort(losses.detach())[: losses.shape[0] - n_drop]
        return losses[keep].mean()


@dataclass(frozen=True)
class ExampleTiedDropout:
    """Example-tied dropout (Maini et al. 2023) on the MLP neurons of every block.

    The first ``p_gen`` fraction of each layer's neurons ("generalisation") is always on; each training
    example keeps a fixed, example-specific random ``p_mem`` fraction of the remaining ("memorisation")
    neurons and drops the rest. At test time every memorisation neuron is dropped
    (:func:`finalize_example_tied`).
    """

    p_gen: float = 0.4
    p_mem: float = 0.1
    seed: int = 0

    def __post_init__(self) -> None:
        check_probability(self.p_gen, "p_gen", allow_zero=False, allow_one=False)
        check_probability(self.p_mem, "p_mem", allow_zero=False)

    def masks(self, example_ids: torch.Tensor, inner_dim: int) -> torch.Tensor:
        """(B,) example ids -> (B, inner_dim) float {0,1} masks, the same for an id on every call."""
        n_gen = int(self.p_gen * inner_dim)
        rows = []
        for i in example_ids.tolist():
            g = torch.Generator().manual_seed(self.seed * 1_000_003 + int(i))
            mem = (torch.rand(inner_dim - n_gen, generator=g) < self.p_mem).float()
            rows.append(torch.cat([torch.ones(n_gen), mem]))
        return torch.stack(rows)


def attach_example_tied(model: torch.nn.Module, etd: ExampleTiedDropout, example_ids: torch.Tensor) -> list:
    """Forward hooks multiplying each MLP activation by the batch's example-tied masks; returns handles."""
    handles = []
    for layer in mlp_layers(model):
        m = etd.masks(example_ids, layer.inner_dim).to(next(model.parameters()).device)

        def hook(_mod: torch.nn.Module, _inp: tuple, out: torch.Tensor, m: torch.Tensor = m) -> torch.Tensor:
            return out * m[:, None, :]

        handles.append(layer.act.register_forward_hook(hook))
    return handles


@torch.no_grad()
def finalize_example_tied(model: torch.nn.Module, etd: ExampleTiedDropout) -> torch.nn.Module:
    """Drop every memorisation neuron for inference: zero their input-projection columns and biases."""
    for layer in mlp_layers(model):
        n_gen = int(etd.p_gen * layer.inner_dim)
        idx = torch.arange(n_gen, layer.inner_dim, device=layer.fc.weight.device)
        _zero_neurons(layer.fc, idx)
    return model


def _zero_neurons(module: Any, idx: torch.Tensor) -> None:
    from transformers.pytorch_utils import Conv1D

    if isinstance(module, Conv1D):
        module.weight[:, idx] = 0.0
    else:
        module.weight[idx, :] = 0.0
    if getattr(module, "bias", None) is not None:
        module.bias[idx] = 0.0
