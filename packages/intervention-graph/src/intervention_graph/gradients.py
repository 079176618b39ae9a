"""Gradient reads and edits through the tracer, and the hand-written baselines they must equal bit for bit.

The task (ours; the paper shows gradient access in its code examples without a number): on a GPT-2, the
loss is the summed log-probability of each row's answer token at the final position; we read the gradient
reaching every block's output, optionally after editing one block's gradient (multiplying it at one
position by ``scale``: ``0`` zeroes it) so that the lower blocks see the edited backward pass.

- :func:`graph_grads` (ours): ``with loss.backward(): g = h.grad.save(); h.grad = h.grad * mask``;
- :func:`hook_grads` (baseline): forward hooks that call ``retain_grad`` / ``register_hook`` on the block
  outputs, then ``loss.backward()`` (the model's parameter gradients are cleared afterwards);
- :func:`autograd_grads` (reference, no edit): ``torch.autograd.grad(loss, block outputs)``.

Each returns the gradients stacked ``(n_layer, rows, seq, d)``; at the edited block, the gradient as it
arrived (before the edit), as nnsight reads ``h.grad`` before ``h.grad = ...``.
"""

from __future__ import annotations

import math
from typing import Any

import torch
from paperkit import check_int
from torch import nn

from intervention_graph.tracer import Backend, wrap

__all__ = ["autograd_grads", "graph_grads", "hook_grads"]


def _check(model: Any, ids: Any, answers: Any, edit_layer: Any, scale: Any, position: Any) -> int:
    if not isinstance(model, nn.Module) or not hasattr(model, "transformer"):
        raise TypeError("model must be a GPT-2 style nn.Module with .transformer.h blocks")
    if not isinstance(ids, torch.Tensor) or ids.ndim != 2 or ids.dtype != torch.int64 or ids.shape[0] < 1:
        raise TypeError("ids must be a non-empty (batch, seq) int64 tensor of token ids")
    ok = isinstance(answers, torch.Tensor) and answers.dtype == torch.int64 and answers.shape == ids.shape[:1]
    if not ok:
        raise TypeError(f"answers must be an int64 tensor of shape ({ids.shape[0]},), one token per row")
    n_layer = len(model.transformer.h)  # type: ignore[union-attr, arg-type]
    if edit_layer is not None:
        check_int(edit_layer, "edit_layer", low=0, high=n_layer - 1)
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not math.isfinite(scale):
        raise ValueError(f"scale must be a finite number, got {scale!r}")
    check_int(position, "position", low=0, high=ids.shape[1] - 1)
    return n_layer


def _mask(ids: torch.Tensor, position: int, scale: float, like: torch.Tensor) -> torch.Tensor:
    """``(seq, 1)``: 1 everywhere, ``scale`` at ``position`` (the edit is ``grad * mask``)."""
    mask = torch.ones(ids.shape[1], 1, dtype=like.dtype, device=like.device)
    mask[position] = scale
    return mask


def graph_grads(model: nn.Module, ids: torch.Tensor, answers: torch.Tensor, *, edit_layer: int | None = None,
                scale: float = 0.0, position: int = 0,
                backend: Backend | None = None) -> torch.Tensor:  # fmt: skip
    """Ours: the gradients of every block's output through a traced backward (see the module docstring)."""
    n_layer = _check(model, ids, answers, edit_layer, scale, position)
    mask = _mask(ids, position, scale, next(model.parameters()))
    m = wrap(model)
    with m.trace(ids, backend=backend):
        outs = [m.transformer.h[i].output for i in range(n_layer)]
        logp = m.lm_head.output[:, -1].log_softmax(-1)
        loss = logp.gather(1, answers[:, None]).sum()
        with loss.backward():
            saved = {}
            for i in reversed(range(n_layer)):  # gradients arrive last block first
                saved[i] = outs[i].grad.save()
                if i == edit_layer:
                    outs[i].grad = outs[i].grad * mask
    return torch.stack([saved[i].value for i in range(n_layer)])


def hook_grads(model: nn.Module, ids: torch.Tensor, answers: torch.Tensor, *, edit_layer: int | None = None,
               scale: float = 0.0, position: int = 0) -> torch.Tensor:  # fmt: skip
    """Baseline: ``retain_grad`` on the block outputs, ``register_hook`` for the edit, ``loss.backward()``."""
    n_layer = _check(model, ids, answers, edit_layer, scale, position)
    mask = _mask(ids, position, scale, next(model.parameters()))
    outs: dict[int, torch.Tensor] = {}
    arrived: dict[int, torch.Tensor] = {}

    def keep(i: int) -> Any:
        def hook(module: nn.Module, args: Any, out: torch.Tensor) -> None:
            outs[i] = out
            if i == edit_layer:

                def edit(g: torch.Tensor) -> torch.Tensor:
                    arrived[i] = g.clone()
                    return g * mask

                out.register_hook(edit)
            else:
                out.retain_grad()

        return hook

    blocks: Any = model.transformer.h  # type: ignore[union-attr]
    handles = [blocks[i].register_forward_hook(keep(i)) for i in range(n_layer)]
    try:
        with torch.enable_grad():
            logp = model(ids).logits[:, -1].log_softmax(-1)
            logp.gather(1, answers[:, None]).sum().backward()
    finally:
        for h in handles:
            h.remove()
        model.zero_grad(set_to_none=True)
    grads = [arrived[i] if i == edit_layer else outs[i].grad for i in range(n_layer)]
    return torch.stack(grads).detach()  # type: ignore[arg-type]


def autograd_grads(model: nn.Module, ids: torch.Tensor, answers: torch.Tensor) -> torch.Tensor:
    """Reference without an edit: ``torch.autograd.grad`` of the same loss w.r.t. the block outputs."""
    n_layer = _check(model, ids, answers, None, 1.0, 0)
    outs: dict[int, torch.Tensor] = {}
    blocks: Any = model.transformer.h  # type: ignore[union-attr]
    handles = [blocks[i].register_forward_hook(lambda mod, a, out, i=i: outs.__setitem__(i, out))
               for i in range(n_layer)]  # fmt: skip
    try:
        with torch.enable_grad():
            logp = model(ids).logits[:, -1].log_softmax(-1)
            loss = logp.gather(1, answers[:, None]).sum()
            grads = torch.autograd.grad(loss, [outs[i] for i in range(n_layer)])
    finally:
        for h in handles:
            h.remove()
    return torch.stack(grads).detach()
