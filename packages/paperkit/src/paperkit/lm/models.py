"""Tiny causal language models built from a config (no weights are downloaded), and saving/loading them."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import torch
from transformers import (
    AutoModelForCausalLM,
    AutoTokenizer,
    GPT2Config,
    GPT2LMHeadModel,
    LlamaConfig,
    LlamaForCausalLM,
    PreTrainedModel,
    PreTrainedTokenizerBase,
)

from paperkit.runtime import DeviceError

ARCHS: tuple[str, ...] = ("gpt2", "llama")


def _positive_int(name: str, value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if value < 1:
        raise ValueError(f"{name} must be >= 1, got {value}")
    return value


def special_ids(tokenizer: PreTrainedTokenizerBase) -> tuple[int, int, int]:
    """``(bos_id, eos_id, pad_id)`` of ``tokenizer``; ValueError naming the missing one if any is unset."""
    ids = {name: getattr(tokenizer, f"{name}_token_id", None) for name in ("bos", "eos", "pad")}
    missing = [name for name, i in ids.items() if i is None]
    if missing:
        raise ValueError(
            f"the tokenizer has no {', '.join(m + '_token' for m in missing)}; paperkit.lm needs bos, eos "
            "and pad tokens (char_tokenizer and train_bpe_tokenizer set all of them)"
        )
    return int(ids["bos"]), int(ids["eos"]), int(ids["pad"])  # type: ignore[arg-type]


def model_device(model: torch.nn.Module) -> torch.device:
    """The device of ``model``'s first parameter."""
    return next(model.parameters()).device


def available_device(device: str | torch.device, name: str = "device") -> torch.device:
    """``device`` as a ``torch.device``, refused with a DeviceError naming it when it is malformed or this
    machine does not have it (torch's own error is a driver message far from the argument)."""
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError, ValueError) as err:
        raise DeviceError(f"unknown {name} {device!r}: expected e.g. 'cpu', 'cuda' or 'cuda:0'") from err
    if dev.type == "cuda":
        if not torch.cuda.is_available():
            raise DeviceError(
                f"{name}={str(device)!r} was asked for but no CUDA GPU is visible (torch.cuda.is_available() "
                "is False); use 'cpu'"
            )
        if dev.index is not None and dev.index >= torch.cuda.device_count():
            raise DeviceError(
                f"{name}={str(device)!r}: this machine has {torch.cuda.device_count()} CUDA device(s)"
            )
    elif dev.type == "mps" and not torch.backends.mps.is_available():
        raise DeviceError(f"{name}={str(device)!r} was asked for but MPS is not available here")
    return dev


def check_device(model: torch.nn.Module, device: str | torch.device) -> torch.device:
    """The model's device, after checking it is ``device`` (``"cuda"`` matches ``cuda:0``, etc.)."""
    want = available_device(device)
    have = model_device(model)
    if have.type != want.type or (want.index is not None and have.index != want.index):
        raise ValueError(f"the model is on {have} but device={str(device)!r}; move it with model.to(device)")
    return have


def tiny_causal_lm(
    tokenizer: PreTrainedTokenizerBase,
    *,
    arch: str = "gpt2",
    n_layer: int = 2,
    n_head: int = 4,
    d_model: int = 128,
    max_positions: int = 256,
    seed: int = 0,
    device: str = "cpu",
) -> PreTrainedModel:
    """A freshly initialised causal LM sized for ``tokenizer``: ``GPT2LMHeadModel`` or ``LlamaForCausalLM``.

    The config takes ``vocab_size = len(tokenizer)`` and the tokenizer's bos/eos/pad ids. Weights are
    float32 and drawn with Hugging Face's own initialisation (normal(0, 0.02) for matrices) on the CPU
    under ``torch.random.fork_rng`` seeded with ``seed``, then moved to ``device``: the same seed gives the
    same weights on every device, and the global RNG state is left as it was.

    Args:
        arch: ``"gpt2"`` (learned positions, LayerNorm, GELU MLP of 4·d_model, tied embeddings, dropout 0)
            or ``"llama"`` (RoPE, RMSNorm, SwiGLU MLP of 4·d_model, untied embeddings, no biases).
        n_layer, n_head, d_model: depth, attention heads, width; ``d_model % n_head == 0`` (and for llama
            the head size must be even, for RoPE).
        max_positions: the longest sequence the model accepts (prompt + completion, specials included).
        device: where the returned model lives.

    Returns:
        The model in eval mode (as ``from_pretrained`` returns one); dropout is 0, so train mode differs
        only in name.
    """
    if arch not in ARCHS:
        raise ValueError(f"unknown arch {arch!r}: expected one of {', '.join(map(repr, ARCHS))}")
    for name, value in (
        ("n_layer", n_layer),
        ("n_head", n_head),
        ("d_model", d_model),
        ("max_positions", max_positions),
    ):
        _positive_int(name, value)
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    dev = available_device(device)
    if d_model % n_head:
        raise ValueError(f"d_model={d_model} must be divisible by n_head={n_head}")
    if arch == "llama" and (d_model // n_head) % 2:
        raise ValueError(f"llama needs an even head size for RoPE; d_model/n_head = {d_model // n_head}")
    bos, eos, pad = special_ids(tokenizer)
    vocab = len(tokenizer)
    config: GPT2Config | LlamaConfig
    if arch == "gpt2":
        config = GPT2Config(
            vocab_size=vocab,
            n_positions=max_positions,
            n_embd=d_model,
            n_layer=n_layer,
            n_head=n_head,
            n_inner=4 * d_model,
            resid_pdrop=0.0,
            embd_pdrop=0.0,
            attn_pdrop=0.0,
            bos_token_id=bos,
            eos_token_id=eos,
            pad_token_id=pad,
        )
        cls: type[PreTrainedModel] = GPT2LMHeadModel
    else:
        config = LlamaConfig(
            vocab_size=vocab,
            hidden_size=d_model,
            intermediate_size=4 * d_model,
            num_hidden_layers=n_layer,
            num_attention_heads=n_head,
            num_key_value_heads=n_head,
            max_position_embeddings=max_positions,
            bos_token_id=bos,
            eos_token_id=eos,
            pad_token_id=pad,
        )
        cls = LlamaForCausalLM
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model: Any = cls(config)
    model = model.to(device=dev, dtype=torch.float32)
    model.eval()
    return model


def save_model(
    model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, path: str | os.PathLike[str]
) -> None:
    """Write ``model`` and ``tokenizer`` to the folder ``path`` (created if needed) with ``save_pretrained``.

    The folder is an ordinary Hugging Face model folder (config.json, model.safetensors, tokenizer.json,
    ...) that ``AutoModelForCausalLM.from_pretrained`` and :func:`load_model` read back bit for bit.
    """
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"{str(folder)!r} exists and is not a folder")
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)


def load_model(
    path: str | os.PathLike[str], *, device: str = "cpu"
) -> tuple[PreTrainedModel, PreTrainedTokenizerBase]:
    """Read a local model folder (from :func:`save_model` or any ``AutoModelForCausalLM`` folder).

    Never touches the network (``local_files_only=True``). Returns ``(model, tokenizer)``, the model in
    eval mode on ``device``, in the dtype it was saved in.
    """
    dev = available_device(device)
    folder = Path(path)
    if not folder.is_dir():
        raise FileNotFoundError(f"no model folder at {str(folder)!r}")
    if not (folder / "config.json").is_file():
        raise FileNotFoundError(f"{str(folder)!r} is not a model folder: it has no config.json")
    model: Any = AutoModelForCausalLM.from_pretrained(folder, local_files_only=True)
    tokenizer: Any = AutoTokenizer.from_pretrained(folder, local_files_only=True)
    model = model.to(dev)
    model.eval()
    return model, tokenizer
