"""A lean GPT-2 forward for supervised training: Hugging Face's ``GPT2LMHeadModel`` function, fewer kernels.

For a right-padded batch ``ids`` (B, L) and a ``response_mask`` (B, L), the SFT loss of
:func:`paperkit.lm.train_causal_lm` is the mean negative log-likelihood of the scored tokens,

    loss = -(1/N) · Σ_{b,i: mask[b,i]} log softmax(W_e · h_L[b, i-1])[ids[b, i]],   N = Σ mask,

where ``h_L`` is GPT-2's last hidden state (pre-LN blocks, GELU with the tanh approximation, learned
positions, final LayerNorm, the head tied to the token embedding ``W_e``). :func:`gpt2_response_nll`
computes the same number from the same parameters as ``GPT2LMHeadModel``, with three shortcuts that
change nothing but float rounding:

- no padding mask: with right padding and causal attention a real token never attends to a pad, so the
  causal kernel of ``scaled_dot_product_attention`` gives the real positions' states unchanged;
- ``F.gelu(approximate="tanh")``, one fused kernel for GPT-2's ``gelu_new`` (the same formula);
- the head and the softmax only at the N scored positions, not at all B·L.

On asb's toy (d 64 x 2 layers, batches of 16 x ~55 tokens), with fused AdamW, a training step takes 1.58x
fewer CPU-seconds than with the Hugging Face forward (asb's ``benchmarks/bench_training.py``). Gradients
agree with Hugging Face's to ~1e-7 (tests/test_lm_lean.py).
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F

#: GPT-2 activations that are the tanh-approximated GELU (``transformers.activations.ACT2FN``)
TANH_GELUS = frozenset({"gelu_new", "gelu_pytorch_tanh"})


def check_lean_gpt2(model: Any) -> None:
    """Refuse a model the lean forward would not reproduce: not a ``GPT2LMHeadModel``, dropout, another
    activation, cross-attention, or attention scaled otherwise than by 1/sqrt(head size)."""
    from transformers import GPT2LMHeadModel

    if not isinstance(model, GPT2LMHeadModel):
        raise ValueError(
            f"forward='lean' needs a transformers GPT2LMHeadModel, got {type(model).__name__}; "
            "use forward='hf'"
        )
    cfg = model.config
    no_dropout = cfg.resid_pdrop == cfg.embd_pdrop == cfg.attn_pdrop == 0
    scaled = cfg.scale_attn_weights and not cfg.scale_attn_by_inverse_layer_idx
    tanh_gelu = cfg.activation_function in TANH_GELUS
    checks = {
        "dropout (resid_pdrop, embd_pdrop, attn_pdrop) is 0": no_dropout,
        f"the activation is a tanh GELU ({', '.join(sorted(TANH_GELUS))})": tanh_gelu,
        "there is no cross-attention": not cfg.add_cross_attention,
        "attention is scaled by 1/sqrt(head size) only": scaled,
    }
    failed = [what for what, ok in checks.items() if not ok]
    if failed:
        raise ValueError(f"forward='lean' reproduces GPT-2 only when {'; '.join(failed)}; use forward='hf'")


def gpt2_hidden(model: Any, ids: torch.Tensor) -> torch.Tensor:
    """The final (LayerNormed) hidden states (B, L, d) of ``GPT2LMHeadModel`` ``model`` on ``ids`` (B, L)
    int64, every position attending causally to all before it (no padding mask). A kernel: no checks
    (:func:`gpt2_response_nll` checks its inputs)."""
    t, cfg = model.transformer, model.config
    batch, length = ids.shape
    d, heads = cfg.n_embd, cfg.n_head
    eps = cfg.layer_norm_epsilon
    x = t.wte(ids) + t.wpe.weight[:length]
    for block in t.h:
        attn, mlp = block.attn, block.mlp
        h = F.layer_norm(x, (d,), block.ln_1.weight, block.ln_1.bias, eps).view(batch * length, d)
        qkv = torch.addmm(attn.c_attn.bias, h, attn.c_attn.weight)  # Conv1D: x @ W + b
        q, k, v = qkv.view(batch, length, 3, heads, d // heads).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(-1, d)
        x = x + torch.addmm(attn.c_proj.bias, a, attn.c_proj.weight).view(batch, length, d)
        h = F.layer_norm(x, (d,), block.ln_2.weight, block.ln_2.bias, eps).view(batch * length, d)
        h = F.gelu(torch.addmm(mlp.c_fc.bias, h, mlp.c_fc.weight), approximate="tanh")
        x = x + torch.addmm(mlp.c_proj.bias, h, mlp.c_proj.weight).view(batch, length, d)
    return F.layer_norm(x, (d,), t.ln_f.weight, t.ln_f.bias, eps)


def response_nll(model: Any, ids: torch.Tensor, response_mask: torch.Tensor) -> torch.Tensor:
    """Kernel of :func:`gpt2_response_nll` without its checks (training checks once, not every step)."""
    hidden = gpt2_hidden(model, ids)
    scored = response_mask[:, 1:]
    logits = hidden[:, :-1][scored] @ model.lm_head.weight.T  # (N, V)
    return F.cross_entropy(logits.float(), ids[:, 1:][scored])


def gpt2_response_nll(model: Any, ids: torch.Tensor, response_mask: torch.Tensor) -> torch.Tensor:
    """The mean negative log-likelihood (a 0-dim tensor, nats per scored token) of the tokens where
    ``response_mask`` (B, L) bool is True, given the tokens before them; ``ids`` (B, L) must be right-padded
    (as :func:`paperkit.lm.encode_prompt_response` pads). Differentiable in ``model``'s parameters.
    Refuses a model :func:`check_lean_gpt2` refuses and ids/masks of the wrong shape or type."""
    check_lean_gpt2(model)
    if ids.ndim != 2 or ids.dtype != torch.long:
        raise ValueError(f"ids must be a (B, L) int64 tensor, got {tuple(ids.shape)} {ids.dtype}")
    if response_mask.shape != ids.shape or response_mask.dtype != torch.bool:
        raise ValueError(
            f"response_mask must be a bool tensor shaped like ids {tuple(ids.shape)}, got "
            f"{tuple(response_mask.shape)} {response_mask.dtype}"
        )
    if ids.shape[1] > model.config.n_positions:
        raise ValueError(
            f"ids has {ids.shape[1]} positions, more than the model's {model.config.n_positions}"
        )
    return response_nll(model, ids, response_mask)
