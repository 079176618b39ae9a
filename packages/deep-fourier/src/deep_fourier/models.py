"""MLPs with each activation of the study, on paperkit.vision's seeded factory, and ReLU -> DFF conversion.

Every network is ``Linear -> activation`` per hidden layer and a linear head (logits stay linear: no
activation on the output layer). ``widths`` are *post-activation* widths, equal for every activation in
``match_features`` mode: a concatenated activation (DFF, CReLU) gets ``width / 2`` pre-activations, so
the parameter count of every layer after the first hidden layer matches the ReLU network's, and the first
layer has half (the paper's width convention is not accessible; this is the spec's reading).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch
from paperkit import check_choice, check_instance, check_int, check_seed
from paperkit.vision import mlp
from paperkit.vision.common import as_device
from torch import nn

from deep_fourier.layers import CReLU, FourierActivation, Sine, pre_activations

__all__ = ["ACTIVATIONS", "ActivationSpec", "convert_activations", "network"]


@dataclass(frozen=True)
class ActivationSpec:
    """``factory`` builds the module; ``expansion`` is how many features it outputs per pre-activation."""

    factory: Callable[[], nn.Module]
    expansion: int
    description: str


ACTIVATIONS: dict[str, ActivationSpec] = {
    "relu": ActivationSpec(nn.ReLU, 1, "ReLU (the control)"),
    "dff": ActivationSpec(FourierActivation, 2, "deep Fourier features [sin z; cos z] (the paper)"),
    "crelu": ActivationSpec(CReLU, 2, "concatenated ReLU [relu z; relu -z]"),
    "sin": ActivationSpec(Sine, 1, "sine only (no cosine partner)"),
    "tanh": ActivationSpec(nn.Tanh, 1, "tanh"),
}


def network(
    activation: str,
    in_dim: int,
    widths: Sequence[int],
    out_dim: int,
    *,
    width_mode: str = "match_features",
    seed: int = 0,
    device: str | torch.device = "cpu",
) -> nn.Sequential:
    """An MLP with ``activation`` (one of :data:`ACTIVATIONS`) after every hidden layer.

    Input ``(batch, in_dim)`` float32 (images are flattened); output ``(batch, out_dim)`` logits.
    """
    spec = ACTIVATIONS[check_choice(activation, "activation", tuple(ACTIVATIONS))]
    check_instance(widths, "widths", (list, tuple))
    widths = [check_int(w, f"widths[{i}]", low=1) for i, w in enumerate(widths)]
    if spec.expansion == 2:
        pre = [pre_activations(w, width_mode, name=f"widths[{i}]") for i, w in enumerate(widths)]
    else:
        check_choice(width_mode, "width_mode", ("match_features", "match_units"))
        pre = list(widths)
    return mlp(
        in_dim, pre, out_dim, activation=spec.factory, expansion=spec.expansion, seed=check_seed(seed),
        device=as_device(device),
    )  # fmt: skip


def convert_activations(
    model: nn.Sequential, *, width_mode: str = "match_features", seed: int = 0
) -> nn.Sequential:
    """A new MLP in which every ReLU of ``model`` (a Sequential of Linear / ReLU / Flatten) is a DFF pair.

    Each Linear followed by a ReLU gets ``out / 2`` outputs (``match_features``) so the features after the
    activation keep the ReLU width; the final Linear keeps its shape (its parameter count is unchanged).
    Weights are freshly initialised from ``seed`` (PyTorch default init); the input model is not modified.
    """
    check_instance(model, "model", nn.Sequential)
    width_mode = check_choice(width_mode, "width_mode", ("match_features", "match_units"))
    if next(model.parameters(), None) is None:
        raise ValueError("model has no parameters (expected Linear / ReLU / Flatten layers)")
    layers = list(model)
    out: list[nn.Module] = []
    prev: int | None = None
    gen_state = torch.random.fork_rng(devices=[])
    with gen_state:
        torch.manual_seed(check_seed(seed))
        for i, layer in enumerate(layers):
            if isinstance(layer, nn.Linear):
                nxt = layers[i + 1] if i + 1 < len(layers) else None
                fan_in = layer.in_features if prev is None else prev
                if isinstance(nxt, nn.ReLU):
                    k = pre_activations(layer.out_features, width_mode, name=f"layer {i} out_features")
                    out.append(nn.Linear(fan_in, k))
                    prev = 2 * k
                else:
                    out.append(nn.Linear(fan_in, layer.out_features))
                    prev = layer.out_features
            elif isinstance(layer, nn.ReLU):
                out.append(FourierActivation())
            elif isinstance(layer, nn.Flatten):
                out.append(nn.Flatten())
            else:
                raise TypeError(f"model[{i}] is a {type(layer).__name__}; expected Linear, ReLU or Flatten")
    device = next(model.parameters()).device
    return nn.Sequential(*out).to(device)
