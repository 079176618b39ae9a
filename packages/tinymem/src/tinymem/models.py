"""The TinyMem GPT-2 models, and finding their MLP projections (any HF causal LM)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, cast

import torch
from paperkit.validation import check_instance, check_int
from transformers import GPT2Config, GPT2LMHeadModel
from transformers.pytorch_utils import Conv1D

from tinymem.data import BOS, EOS, PAD, VOCAB_SIZE


def tinymem_config(
    n_layer: int = 2,
    *,
    n_embd: int = 128,
    n_head: int = 4,
    n_positions: int = 48,
    vocab_size: int = VOCAB_SIZE,
) -> GPT2Config:
    """The TinyMem ``GPT2Config`` (official ``memorization_in_toy_models.py``).

    ReLU MLP of width 4·n_embd, all dropouts 0, ``initializer_range = 0.8 / sqrt(n_embd)``; BOS/EOS/PAD are
    the TinyMem tokens 10/11/13. Paper: n_layer ∈ {2, 4, 8, 16}, n_embd 128, n_head 4, n_positions 150.
    """
    for name, value in (
        ("n_layer", n_layer),
        ("n_embd", n_embd),
        ("n_head", n_head),
        ("n_positions", n_positions),
    ):
        check_int(value, name, low=1)
    if n_embd % n_head:
        raise ValueError(f"n_embd={n_embd} must be divisible by n_head={n_head}")
    return GPT2Config(
        vocab_size=vocab_size,
        n_positions=n_positions,
        n_embd=n_embd,
        n_layer=n_layer,
        n_head=n_head,
        activation_function="relu",
        resid_pdrop=0.0,
        embd_pdrop=0.0,
        attn_pdrop=0.0,
        initializer_range=0.8 / math.sqrt(n_embd),
        bos_token_id=BOS,
        eos_token_id=EOS,
        pad_token_id=PAD,
    )


def build_model(config: GPT2Config, *, seed: int = 0, device: str = "cpu") -> GPT2LMHeadModel:
    """A freshly initialised ``GPT2LMHeadModel`` (weights drawn on the CPU under a forked, seeded RNG)."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = GPT2LMHeadModel(config)
    return model.to(torch.device(device))  # type: ignore[arg-type]


def n_params(model: torch.nn.Module) -> int:
    """Number of parameters (tied embeddings counted once)."""
    return sum(p.numel() for p in model.parameters())


@dataclass(frozen=True)
class MLPLayer:
    """One transformer block's MLP: ``fc`` (d -> inner), activation ``act``, output ``proj``."""

    index: int
    fc: Any  # a Conv1D / nn.Linear (typed Any: its .weight/.bias are Parameters, not Module attributes)
    act: Any
    proj: Any

    @property
    def inner_dim(self) -> int:
        return out_features(self.fc)


EXPECTED_MLP_NAMES = (
    "transformer.h.<i>.mlp.{c_fc, act, c_proj} (GPT-2)",
    "gpt_neox.layers.<i>.mlp.{dense_h_to_4h, act, dense_4h_to_h} (Pythia)",
    "model.layers.<i>.mlp.{up_proj, act_fn, down_proj} (Llama; gate_proj is not localised)",
)


def mlp_layers(model: torch.nn.Module) -> list[MLPLayer]:
    """The MLP modules of every block of a GPT-2, GPT-NeoX (Pythia) or Llama causal LM.

    Raises ValueError listing the expected module names when the model has none of them.
    """
    check_instance(model, "model", torch.nn.Module)
    layers: list[MLPLayer] = []
    for path, names in (
        ("transformer.h", ("c_fc", "act", "c_proj")),
        ("gpt_neox.layers", ("dense_h_to_4h", "act", "dense_4h_to_h")),
        ("model.layers", ("up_proj", "act_fn", "down_proj")),
    ):
        blocks = _get(model, path)
        if blocks is None:
            continue
        for i, block in enumerate(cast(Any, blocks)):
            mlp = getattr(block, "mlp", None)
            mods = [getattr(mlp, n, None) for n in names]
            if mlp is None or any(m is None for m in mods):
                break
            layers.append(MLPLayer(i, mods[0], mods[1], mods[2]))
        if layers:
            return layers
    raise ValueError(
        f"cannot find the MLP layers of {type(model).__name__}: expected modules named "
        + "; ".join(EXPECTED_MLP_NAMES)
    )


def _get(obj: object, path: str) -> object | None:
    for part in path.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def out_features(module: torch.nn.Module) -> int:
    """Output width of a GPT-2 ``Conv1D`` (weight in×out) or ``nn.Linear`` (weight out×in)."""
    if isinstance(module, Conv1D):
        return int(module.weight.shape[1])
    if isinstance(module, torch.nn.Linear):
        return int(module.out_features)
    raise TypeError(f"expected a Conv1D or nn.Linear projection, got {type(module).__name__}")


def mlp_weights(model: torch.nn.Module) -> list[tuple[str, torch.nn.Parameter]]:
    """``(name, weight)`` of every MLP projection (input and output), in layer order."""
    out = []
    for layer in mlp_layers(model):
        out.append((f"h.{layer.index}.mlp.fc.weight", layer.fc.weight))
        out.append((f"h.{layer.index}.mlp.proj.weight", layer.proj.weight))
    return out
