"""Interleaving an intervention graph with a model's forward pass through hooks (the local backend).

``execute(graph, model, inputs)`` concatenates the invokes' inputs along the batch dimension, registers
forward pre-hooks / forward hooks (``with_kwargs=True``) on the modules some get/set node names, and runs
one forward. Nodes run in creation order — the order of the user's code — as far as their values exist:
when a hook fires for (module, io, call k), the value is bound to the get nodes of that point (sliced to
their invoke's rows) and the nodes after the last one run are executed until one needs a later point.
A set node (or an in-place ``setitem`` through a view of the value) must run while its point's hook is
open; reached later, it raises the ordering error. After the forward, a node that never ran raises
"never executed", naming the module it waited for. Hooks are removed in ``finally``. Values are dropped
after their last consumer unless saved, so memory is bounded by what is live in the user's code.

A ``stop`` node ends the forward when its stream reaches it (raised from inside the hook, caught here):
modules after it never run; nodes of other invokes still waiting then raise "never executed".

Gradients: a ``backward(loss)`` node makes the whole forward run with autograd on and, when reached,
registers ``Tensor.register_hook`` on every tensor whose ``grad`` its block reads or sets (for a getter: the
module's full output, the gradient then sliced to the invoke's rows), and runs
``torch.autograd.grad(loss, those tensors)``. Each hook binds the arriving gradient (a clone: autograd may
hand one buffer to several tensors) to the ``grad`` nodes and advances the streams; a ``set_grad`` (or an
in-place ``setitem`` on a gradient view) run while that hook is open becomes the gradient that flows on.
``autograd.grad`` rather than ``backward`` leaves the parameters' ``.grad`` untouched (a hosted model is
shared), and saved values come back detached.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import torch
from torch import nn

from intervention_graph.graph import Graph, GraphError, Node, Ref, refs_in
from intervention_graph.ops import ALLOWED_OPS, VIEW_OPS

__all__ = ["JobTimeout", "batch_inputs", "execute"]


_GRAD_USERS = ("grad", "set_grad")


class _Stop(Exception):
    """Raised by a ``stop`` node inside a hook: ends the forward early (caught by :func:`execute`)."""


class JobTimeout(RuntimeError):
    """The forward passed its deadline (checked at every hook)."""


def batch_inputs(inputs: Sequence[Any]) -> Any:
    """One batch from the invokes' inputs (tensors concatenated along dim 0)."""
    if not inputs:
        raise ValueError("inputs must hold at least one invoke's input")
    if not all(isinstance(x, torch.Tensor) for x in inputs):
        raise TypeError("inputs must be tensors (one batch per invoke)")
    return inputs[0] if len(inputs) == 1 else torch.cat(list(inputs), dim=0)


def _rows(value: Any, rows: tuple[int, int] | None) -> Any:
    if rows is None:
        return value
    if isinstance(value, torch.Tensor):
        return value[rows[0] : rows[1]]
    if isinstance(value, tuple):
        return type(value)(_rows(v, rows) for v in value) if not hasattr(value, "_fields") else value
    if isinstance(value, list):
        return [_rows(v, rows) for v in value]
    return value


def _write_rows(full: Any, rows: tuple[int, int] | None, new: Any, where: str) -> Any:
    """``full`` with its ``rows`` replaced by ``new`` (a fresh object; the live value is not edited)."""
    if rows is None or new is full:
        return new
    if isinstance(full, torch.Tensor):
        if not isinstance(new, torch.Tensor) or new.shape != full[rows[0] : rows[1]].shape:
            shape = tuple(new.shape) if isinstance(new, torch.Tensor) else type(new).__name__
            raise GraphError(f"{where}: the new value has shape {shape}, the invoke's rows have "
                             f"{tuple(full[rows[0]:rows[1]].shape)}")  # fmt: skip
        out = full.clone()
        out[rows[0] : rows[1]] = new.to(full.dtype)
        return out
    if isinstance(full, tuple) and isinstance(new, tuple) and len(full) == len(new):
        return tuple(_write_rows(f, rows, n, where) for f, n in zip(full, new, strict=True))
    raise GraphError(f"{where}: cannot write a {type(new).__name__} into a {type(full).__name__}")


class _Run:
    """The state of one execution (one forward)."""

    def __init__(self, graph: Graph, model: nn.Module, deadline: float | None) -> None:
        self.graph, self.model, self.deadline = graph, model, deadline
        self.nodes = graph.nodes
        self.values: dict[int, Any] = {}
        self.streams: dict[int, list[int]] = {}
        for node in self.nodes:
            self.streams.setdefault(node.invoke, []).append(node.id)
        self.pos = dict.fromkeys(self.streams, 0)  # per stream: how many of its nodes have run
        self.done: set[int] = set()
        self.calls: dict[tuple[str, str], int] = {}
        self.open_key: tuple[str, str, int] | None = None
        self.current: Any = None
        self.replacement: Any = None
        self.replaced = False
        self.saved = set(graph.saves.values())
        self.consumers = [0] * len(self.nodes)
        self.source: list[tuple[str, str, int] | None] = [None] * len(self.nodes)
        for node in self.nodes:
            for ref in refs_in((node.args, node.kwargs)):
                self.consumers[ref.id] += 1
        self.modules = dict(model.named_modules())
        self.in_module_call = False
        backwards = [n.id for n in self.nodes if n.kind == "apply" and n.op == "backward"]
        self.grad_mode = bool(backwards)
        self.last_backward = max(backwards, default=-1)
        # getters whose gradient some node asks for: keep their unsliced value until the backward hooks it
        self.grad_targets = {n.args[0].id for n in self.nodes if n.kind == "apply" and n.op in _GRAD_USERS}
        self.full: dict[int, Any] = {}
        self.grad_rows: dict[int, tuple[int, int] | None] = {}

    # --- values --------------------------------------------------------------------------------------

    def resolve(self, value: Any) -> Any:
        if isinstance(value, Ref):
            return self.values[value.id]
        if isinstance(value, tuple):
            return tuple(self.resolve(v) for v in value)
        if isinstance(value, list):
            return [self.resolve(v) for v in value]
        if isinstance(value, dict):
            return {k: self.resolve(v) for k, v in value.items()}
        if isinstance(value, slice):
            return slice(self.resolve(value.start), self.resolve(value.stop), self.resolve(value.step))
        return value

    def release(self, node: Node) -> None:
        for ref in refs_in((node.args, node.kwargs)):
            self.consumers[ref.id] -= 1
            if self.consumers[ref.id] == 0 and ref.id not in self.saved:
                self.values.pop(ref.id, None)

    # --- running nodes -------------------------------------------------------------------------------

    def ready(self, node: Node) -> bool:
        if node.kind == "get" or node.op == "grad":  # bound by a forward / gradient hook
            return node.id in self.values
        return all(ref.id in self.done for ref in refs_in((node.args, node.kwargs)))

    def pending(self) -> list[Node]:
        """The next node of each stream that has not finished."""
        return [self.nodes[ids[self.pos[s]]] for s, ids in self.streams.items() if self.pos[s] < len(ids)]

    def advance(self) -> None:
        """Run each stream's nodes in order until every stream waits for a hook point not fired yet."""
        progress = True
        while progress:
            progress = False
            for node in self.pending():
                ids = self.streams[node.invoke]
                # a backward run inside this loop advances the streams itself: skip what it already ran
                if self.pos[node.invoke] >= len(ids) or ids[self.pos[node.invoke]] != node.id:
                    continue
                if not self.ready(node):
                    continue
                self.pos[node.invoke] += 1
                if node.kind == "apply" and node.op == "backward":
                    self.done.add(node.id)
                    self.values[node.id] = None  # a backward has no value; its grad nodes refer to it
                    self.backward(node)
                elif node.kind == "apply" and node.op == "stop":
                    self.done.add(node.id)
                    raise _Stop
                elif node.kind == "apply" and node.op != "grad":
                    self.values[node.id] = self.apply(node)
                elif node.kind == "set":
                    self.set(node)
                self.done.add(node.id)
                self.release(node)
                progress = True

    def where(self, node: Node) -> str:
        return f"node {node.id} ({node.kind} {node.op or node.module or '<model>'})"

    def apply(self, node: Node) -> Any:
        args, kwargs = self.resolve(node.args), self.resolve(node.kwargs)
        if node.op == "setitem":
            return self.setitem(node, *args)
        if node.op == "call_module":
            return self.call_module(node, args, kwargs)
        if node.op == "set_grad":
            return self.set_grad(node, args[2])
        try:
            out = ALLOWED_OPS[node.op](*args, **kwargs)
        except (RuntimeError, TypeError, ValueError, IndexError) as err:
            raise GraphError(f"{self.where(node)} failed: {type(err).__name__}: {err}") from None
        if node.op in VIEW_OPS and node.args and isinstance(node.args[0], Ref):
            self.source[node.id] = self.source[node.args[0].id]
        return out

    def check_open(self, node: Node, key: tuple[str, str, int] | None) -> None:
        if key is not None and key != self.open_key and key[1] == "grad":
            raise GraphError(
                f"ordering error: {self.where(node)} edits the gradient of {key[0]} after the backward pass "
                "had passed it; gradients arrive in reverse forward order, so edit later modules' first"
            )
        if key is not None and key != self.open_key:
            module, io, call = key
            raise GraphError(
                f"ordering error: {self.where(node)} writes the {io} of {module or '<model>'} (call {call}), "
                "which the forward had already passed; a write must be computable when that module runs"
            )

    def setitem(self, node: Node, target: Any, index: Any, value: Any) -> Any:
        key = self.source[node.args[0].id] if isinstance(node.args[0], Ref) else None
        self.check_open(node, key)
        if isinstance(target, tuple) and key is not None and isinstance(index, int):
            # A tuple output (HF blocks): rebuild it with element `index` replaced.
            getter = self.nodes[node.args[0].id]
            new = list(target)
            new[index] = value
            full = self.replacement if self.replaced else self.current
            self.replacement = _write_rows(full, getter.rows, tuple(new), self.where(node))
            self.replaced = True
            return None
        if not isinstance(target, torch.Tensor):
            raise GraphError(f"{self.where(node)}: cannot assign into a {type(target).__name__}")
        try:
            target[index] = value
        except (RuntimeError, TypeError, IndexError) as err:
            raise GraphError(f"{self.where(node)} failed: {type(err).__name__}: {err}") from None
        return None

    def set(self, node: Node) -> None:
        self.check_open(node, node.key)
        new = self.resolve(node.args[0])
        full = self.replacement if self.replaced else self.current
        if node.io == "input":
            args, kwargs = full
            if args:
                self.replacement = (
                    (_write_rows(args[0], node.rows, new, self.where(node)), *args[1:]),
                    kwargs,
                )
            else:
                first = next(iter(kwargs))
                self.replacement = (
                    args,
                    {**kwargs, first: _write_rows(kwargs[first], node.rows, new, self.where(node))},
                )
        else:
            self.replacement = _write_rows(full, node.rows, new, self.where(node))
        self.replaced = True

    def call_module(self, node: Node, args: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
        if not args or not isinstance(args[0], str) or args[0] not in self.modules:
            raise GraphError(f"{self.where(node)}: call_module needs the path of a module of the model")
        self.in_module_call = True  # its own hooks must not count this call
        try:
            return self.modules[args[0]](*args[1:], **kwargs)
        except (RuntimeError, TypeError, ValueError) as err:
            raise GraphError(f"{self.where(node)} failed: {type(err).__name__}: {err}") from None
        finally:
            self.in_module_call = False

    # --- backward ------------------------------------------------------------------------------------

    def backward(self, node: Node) -> None:
        """Hook the tensors whose gradients this backward's nodes use, then run autograd from the loss."""
        loss = self.resolve(node.args[0])
        if not isinstance(loss, torch.Tensor) or loss.numel() != 1 or not loss.requires_grad:
            what = f"a {type(loss).__name__}" if not isinstance(loss, torch.Tensor) else (
                f"a tensor of shape {tuple(loss.shape)}, requires_grad={loss.requires_grad}")  # fmt: skip
            raise GraphError(f"{self.where(node)}: backward needs a one-element tensor that requires grad "
                             f"(a model whose parameters require grad), got {what}")  # fmt: skip
        bw = Ref(node.id)
        targets = sorted({n.args[0].id for n in self.nodes if n.op in _GRAD_USERS and n.args[1] == bw})
        handles, tensors = [], []
        try:
            for t in targets:
                if t not in self.full and t not in self.values:
                    raise GraphError(
                        f"{self.where(node)}: node {t} has no value yet when the backward runs (its module "
                        "runs after the loss); take .grad of earlier values"
                    )
                tensor = self.full.pop(t, self.values.get(t))
                if not isinstance(tensor, torch.Tensor) or not tensor.requires_grad:
                    raise GraphError(
                        f"{self.where(node)}: node {t}'s value is not a tensor that requires grad, so it has "
                        "no gradient (take .grad of a module's tensor output or input)"
                    )
                self.grad_rows[t] = self.nodes[t].rows if self.nodes[t].kind == "get" else None
                handles.append(tensor.register_hook(self.grad_hook(node.id, t)))
                tensors.append(tensor)
            torch.autograd.grad(loss, tensors, allow_unused=True, retain_graph=node.id < self.last_backward)
        except RuntimeError as err:
            if isinstance(err, JobTimeout):
                raise
            raise GraphError(f"{self.where(node)} failed: {type(err).__name__}: {err}") from None
        finally:
            for h in handles:
                h.remove()

    def grad_hook(self, bw: int, target: int) -> Callable[[torch.Tensor], torch.Tensor]:
        key = (f"node {target}", "grad", bw)
        users = [n for n in self.nodes if n.op == "grad" and n.args[0].id == target and n.args[1].id == bw]

        def hook(grad: torch.Tensor) -> torch.Tensor:
            if self.deadline is not None and time.monotonic() > self.deadline:
                raise JobTimeout("the job ran past its time limit")
            # the backward may run inside a forward hook: keep that hook's state
            outer = (self.open_key, self.current, self.replaced, self.replacement)
            g = grad.clone()
            self.open_key, self.current, self.replaced, self.replacement = key, g, False, None
            for n in users:
                self.values[n.id] = _rows(g, self.grad_rows[target])
                self.source[n.id] = key
                self.done.add(n.id)
            try:
                self.advance()
                return self.replacement if self.replaced else g
            finally:
                self.open_key, self.current, self.replaced, self.replacement = outer

        return hook

    def set_grad(self, node: Node, new: Any) -> None:
        target = node.args[0].id
        self.check_open(node, (f"node {target}", "grad", node.args[1].id))
        full, rows = (self.replacement if self.replaced else self.current), self.grad_rows[target]
        if rows is None and (not isinstance(new, torch.Tensor) or new.shape != full.shape):
            shape = tuple(new.shape) if isinstance(new, torch.Tensor) else type(new).__name__
            raise GraphError(f"{self.where(node)}: the new gradient has shape {shape}, the tensor has "
                             f"{tuple(full.shape)}")  # fmt: skip
        self.replacement = _write_rows(full, rows, new, self.where(node)) if rows else new.to(full.dtype)
        self.replaced = True

    # --- hooks ---------------------------------------------------------------------------------------

    def fire(self, module: str, io: str, value: Any) -> Any:
        """Bind ``value`` to the get nodes of this point, run what became ready; the replacement or None."""
        if self.in_module_call:
            return None
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise JobTimeout("the job ran past its time limit")
        k = self.calls.get((module, io), 0)
        self.calls[(module, io)] = k + 1
        key = (module, io, k)
        getters = [n for n in self.nodes if n.kind == "get" and n.key == key and n.id not in self.done]
        if not getters and not any(
            n.kind == "set" and n.key == key and n.id not in self.done for n in self.nodes
        ):
            return None
        self.open_key, self.current, self.replaced, self.replacement = key, value, False, None
        for g in getters:
            self.values[g.id] = self.view(g, value)
            if g.id in self.grad_targets:
                self.full[g.id] = self.view(Node(id=g.id, kind="get", io=g.io), value)
            self.source[g.id] = key
            self.done.add(g.id)
        try:
            self.advance()
        finally:
            self.open_key, self.current = None, None
        return self.replacement if self.replaced else None

    def view(self, getter: Node, value: Any) -> Any:
        if getter.io == "inputs":
            args, kwargs = value
            return (_rows(tuple(args), getter.rows), {k: _rows(v, getter.rows) for k, v in kwargs.items()})
        if getter.io == "input":
            args, kwargs = value
            return _rows(args[0] if args else next(iter(kwargs.values())), getter.rows)
        return _rows(value, getter.rows)

    def hooks(self, name: str) -> tuple[Callable[..., Any], Callable[..., Any]]:
        def pre(module: nn.Module, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
            return self.fire(name, "input", (args, kwargs))

        def post(module: nn.Module, args: Any, kwargs: Any, output: Any) -> Any:
            return self.fire(name, "output", output)

        return pre, post


def execute(
    graph: Graph,
    model: nn.Module,
    inputs: Sequence[Any],
    *,
    deadline: float | None = None,
    forward_kwargs: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Run ``model`` once on the concatenated ``inputs`` with ``graph`` interleaved; the saved values.

    Args:
        graph: the intervention graph (validated here against the model's module paths).
        model: any ``nn.Module``; called as ``model(batch, **forward_kwargs)`` under ``torch.no_grad``
            (with autograd on when the graph has a ``backward`` node).
        inputs: one tensor per invoke, ``(rows_i, ...)``; the get/set rows index the concatenation.
        deadline: a ``time.monotonic()`` value; a hook firing after it raises :class:`JobTimeout`.

    Raises:
        GraphError: an invalid graph, an op that fails, an ordering error, or a node never executed.
    """
    if not isinstance(graph, Graph):
        raise TypeError(f"graph must be a Graph, got {type(graph).__name__}")
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be an nn.Module, got {type(model).__name__}")
    run = _Run(graph.validate(frozenset(dict(model.named_modules()))), model, deadline)
    handles = []
    try:
        for name in sorted(graph.modules()):
            pre, post = run.hooks(name)
            module = run.modules[name]
            handles.append(module.register_forward_pre_hook(pre, with_kwargs=True))
            handles.append(module.register_forward_hook(post, with_kwargs=True))
        # Autograd only when the graph runs a backward: otherwise no graph of the forward is kept.
        with torch.enable_grad() if run.grad_mode else torch.no_grad():
            try:
                run.advance()  # nodes that need no hook (constants only)
                model(batch_inputs(inputs), **dict(forward_kwargs or {}))
                run.advance()
            except _Stop:  # a stop node: the rest of the forward is skipped
                pass
        if run.pending():
            raise GraphError(_never_ran(run))
    finally:
        for h in handles:
            h.remove()
    saved = {name: run.values[i] for name, i in graph.saves.items()}
    return {k: _detached(v) for k, v in saved.items()} if run.grad_mode else saved


def _detached(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return value.detach()
    if isinstance(value, (tuple, list)) and not hasattr(value, "_fields"):
        return type(value)(_detached(v) for v in value)
    return value


def _never_ran(run: _Run) -> str:
    node = min(run.pending(), key=lambda n: n.id)
    if node.op == "grad":
        target, bw = node.args[0].id, node.args[1].id
        reached = "never ran" if bw not in run.done else "did not reach it (the loss does not depend on it)"
        return (f"{run.where(node)} never executed: it waits for the gradient of node {target}, but the "
                f"backward of node {bw} {reached}")  # fmt: skip
    waiting = next((n for n in run.nodes[node.id :] if n.kind == "get" and n.id not in run.done), node)
    module, io, call = waiting.key
    seen = run.calls.get((module, io), 0)
    return (
        f"{run.where(node)} never executed: it waits for the {io} of {module or '<model>'} call {call}, "
        f"but that module was called {seen} time(s) in this forward"
    )
