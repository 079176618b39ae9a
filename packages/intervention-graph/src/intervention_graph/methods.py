"""The three ways to run one intervention experiment, and their registry.

- ``graph`` (ours): the experiment as an intervention graph, traced with :class:`Tracer` and run by the
  local executor (or any backend);
- ``hooks``: hand-written PyTorch forward hooks (the paper's Code Example 2 contrast): the oracle;
- ``tracedict``: a baukit-style ``TraceDict`` context that records/edits named layers eagerly.

Tasks on a GPT-2 (``model.transformer.h[i]`` blocks): ``patching`` (clean and corrupt in one batch, the
clean block-``layer`` output at ``position`` written into the corrupt rows), ``ablation`` (block
``layer``'s MLP output set to zero) and ``logit_lens`` (``lm_head(ln_f(h_layer))``). Each returns the
final-position logits it produced, ``(rows, vocab)``, so the three implementations can be compared bit
for bit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
from paperkit import check_choice, check_int
from torch import nn

from intervention_graph.models import copy_pairs, tiny_gpt2
from intervention_graph.tracer import Backend, wrap

__all__ = ["METHODS", "TASKS", "MethodInfo", "TraceDict", "run_method", "run_task"]

TASKS = ("patching", "ablation", "logit_lens")


def _check(model: Any, clean: Any, corrupt: Any, layer: int, position: int, task: str) -> None:
    check_choice(task, "task", TASKS)
    if not isinstance(model, nn.Module) or not hasattr(model, "transformer"):
        raise TypeError("model must be a GPT-2 style nn.Module with .transformer.h blocks")
    for name, x in (("clean", clean), ("corrupt", corrupt)):
        if not isinstance(x, torch.Tensor) or x.ndim != 2 or x.dtype != torch.int64:
            raise TypeError(f"{name} must be a (batch, seq) int64 tensor of token ids")
    if clean.shape != corrupt.shape:
        raise ValueError(f"clean {tuple(clean.shape)} and corrupt {tuple(corrupt.shape)} must have one shape")
    blocks: Any = model.transformer.h  # type: ignore[union-attr]
    check_int(layer, "layer", low=0, high=len(blocks) - 1)
    check_int(position, "position", low=0, high=clean.shape[1] - 1)


# --- ours ----------------------------------------------------------------------------------------------


def graph_task(model: Any, clean: torch.Tensor, corrupt: torch.Tensor, *, task: str, layer: int,
               position: int, backend: Backend | None = None) -> torch.Tensor:  # fmt: skip
    """The task through the tracer; final-position logits ``(rows, vocab)``."""
    m = wrap(model)
    block = m.transformer.h[layer]
    if task == "patching":
        with m.trace(backend=backend) as tr:
            with tr.invoke(clean):
                source = block.output[:, position]
                clean_out = m.lm_head.output[:, -1].save()
            with tr.invoke(corrupt):
                block.output[:, position] = source
                patched = m.lm_head.output[:, -1].save()
        return torch.cat([clean_out.value, patched.value])
    if task == "ablation":
        with m.trace(corrupt, backend=backend):
            block.mlp.output = block.mlp.output * 0.0
            out = m.lm_head.output[:, -1].save()
        return out.value
    with m.trace(corrupt, backend=backend):
        lens = m.lm_head(m.transformer.ln_f(block.output[:, -1])).save()
    return lens.value


# --- baselines -----------------------------------------------------------------------------------------


def hook_task(model: Any, clean: torch.Tensor, corrupt: torch.Tensor, *, task: str, layer: int,
              position: int) -> torch.Tensor:  # fmt: skip
    """The task with hand-written hooks on the same batch composition."""
    block = model.transformer.h[layer]
    n = clean.shape[0]
    if task == "patching":

        def patch(module: nn.Module, args: Any, output: torch.Tensor) -> torch.Tensor:
            output[n:, position] = output[:n, position]
            return output

        handle = block.register_forward_hook(patch)
        try:
            with torch.no_grad():
                return model(torch.cat([clean, corrupt])).logits[:, -1]
        finally:
            handle.remove()
    if task == "ablation":
        handle = block.mlp.register_forward_hook(lambda mod, args, out: out * 0.0)
        try:
            with torch.no_grad():
                return model(corrupt).logits[:, -1]
        finally:
            handle.remove()
    seen: dict[str, torch.Tensor] = {}
    handle = block.register_forward_hook(lambda mod, args, out: seen.__setitem__("h", out))
    try:
        with torch.no_grad():
            model(corrupt)
            return model.lm_head(model.transformer.ln_f(seen["h"][:, -1]))
    finally:
        handle.remove()


class TraceDict:
    """Record (and optionally edit) the outputs of named layers during forwards inside the context:
    ``with TraceDict(model, ["transformer.h.1"], edit=fn) as td: model(x); td["transformer.h.1"]``;
    ``edit(output, name)`` returns the output to use. Hooks are removed on exit."""

    def __init__(self, model: nn.Module, layers: list[str],
                 edit: Callable[[Any, str], Any] | None = None) -> None:  # fmt: skip
        modules = dict(model.named_modules())
        missing = [name for name in layers if name not in modules]
        if missing:
            raise ValueError(f"layers: the model has no modules {missing}")
        self.model, self.layers, self.edit = model, list(layers), edit
        self.outputs: dict[str, Any] = {}
        self._handles: list[Any] = []
        self._modules = modules

    def __getitem__(self, name: str) -> Any:
        return self.outputs[name]

    def __enter__(self) -> TraceDict:
        for name in self.layers:
            self._handles.append(self._modules[name].register_forward_hook(self._hook(name)))
        return self

    def _hook(self, name: str) -> Callable[..., Any]:
        def hook(module: nn.Module, args: Any, output: Any) -> Any:
            if self.edit is not None:
                output = self.edit(output, name)
            self.outputs[name] = output
            return output

        return hook

    def __exit__(self, *exc: object) -> None:
        for h in self._handles:
            h.remove()
        self._handles.clear()


def tracedict_task(model: Any, clean: torch.Tensor, corrupt: torch.Tensor, *, task: str, layer: int,
                   position: int) -> torch.Tensor:  # fmt: skip
    """The task with :class:`TraceDict`."""
    n, name = clean.shape[0], f"transformer.h.{layer}"
    if task == "patching":

        def edit(output: torch.Tensor, _: str) -> torch.Tensor:
            output[n:, position] = output[:n, position]
            return output

        with TraceDict(model, [name], edit=edit), torch.no_grad():
            return model(torch.cat([clean, corrupt])).logits[:, -1]
    if task == "ablation":
        with TraceDict(model, [name + ".mlp"], edit=lambda out, _: out * 0.0), torch.no_grad():
            return model(corrupt).logits[:, -1]
    with TraceDict(model, [name]) as td, torch.no_grad():
        model(corrupt)
        return model.lm_head(model.transformer.ln_f(td[name][:, -1]))


# --- registry ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MethodInfo:
    """A registry entry: ``run(model, clean, corrupt, task=, layer=, position=)``; ``deferred``: builds a
    graph (so it can run remotely) rather than running eagerly."""

    run: Callable[..., torch.Tensor]
    deferred: bool
    description: str

    def call(self, *, task: str, n_pairs: int, layer: int, position: int, seed: int,
             device: str = "cpu", n_layer: int = 4, n_embd: int = 128) -> torch.Tensor:  # fmt: skip
        """Build the seed's tiny GPT-2 and pairs, run the task; final-position logits."""
        check_int(n_pairs, "n_pairs", low=1)
        model = tiny_gpt2(seed=seed, device=device, n_layer=n_layer, n_embd=n_embd)
        data = copy_pairs(n_pairs, seed=seed, device=device)
        return run_task(self.run, model, data.clean, data.corrupt, task=task, layer=layer, position=position)


METHODS: dict[str, MethodInfo] = {
    "graph": MethodInfo(graph_task, True, "ours: traced intervention graph, local executor"),
    "hooks": MethodInfo(hook_task, False, "hand-written forward hooks (the oracle)"),
    "tracedict": MethodInfo(tracedict_task, False, "baukit-style TraceDict (eager hooks by layer name)"),
}


def run_task(run: Callable[..., torch.Tensor], model: nn.Module, clean: torch.Tensor, corrupt: torch.Tensor,
             *, task: str, layer: int, position: int) -> torch.Tensor:  # fmt: skip
    """Validate, then ``run``; final-position logits."""
    _check(model, clean, corrupt, layer, position, task)
    return run(model, clean, corrupt, task=task, layer=layer, position=position)


def run_method(name: str, model: nn.Module, clean: torch.Tensor, corrupt: torch.Tensor, *, task: str,
               layer: int, position: int) -> torch.Tensor:  # fmt: skip
    """Run registry method ``name`` on ``model``; final-position logits ``(rows, vocab)``."""
    check_choice(name, "name", tuple(METHODS))
    return run_task(METHODS[name].run, model, clean, corrupt, task=task, layer=layer, position=position)
