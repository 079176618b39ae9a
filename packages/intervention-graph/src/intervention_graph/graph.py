"""The intervention graph I = (V', A', E') of the paper's Section 3, as plain data.

Node kinds (names ours):

- ``get``: getter edge — the ``io`` of ``module`` (a dotted path of ``named_modules``) the ``call``-th time
  it runs in the forward, restricted to batch ``rows = (start, stop)`` of one invoke (None: all rows).
  ``io`` is ``"output"``, ``"input"`` (the first positional argument, or the first keyword one) or
  ``"inputs"`` (the pair ``(args, kwargs)``).
- ``set``: setter edge — replace that same value (only its ``rows``) by ``args[0]``.
- ``apply``: ``op`` (a name of :data:`intervention_graph.ops.ALLOWED_OPS` or ``setitem``/``call_module``)
  applied to ``args``/``kwargs``, which hold literals, small tensors and references ``Ref(id)`` to earlier
  nodes.

Each node belongs to one ``invoke`` (a stream): nodes of one invoke run in their creation order, those
of different invokes independently, as their values become available. A reference always points to an
earlier node, so every graph is acyclic by construction; combined with
the model's computation graph it must also respect module order, which the executor checks at run time
(a setter reached after its module ran is an ordering error). ``saves`` maps names to the nodes whose
values are returned to the caller (remotely: the only values sent back).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from intervention_graph.ops import is_allowed

__all__ = ["IOS", "KINDS", "Graph", "GraphError", "Node", "Ref", "refs_in"]

KINDS = ("get", "set", "apply")
IOS = ("output", "input", "inputs")
MAX_CALL = 1_000_000


class GraphError(ValueError):
    """A graph that cannot run: bad structure, an op off the allow-list, an unknown module, bad order."""


@dataclass(frozen=True)
class Ref:
    """A reference to the value of node ``id``."""

    id: int


@dataclass(frozen=True)
class Node:
    """One node; fields not used by its ``kind`` keep their defaults (see the module docstring)."""

    id: int
    kind: str
    op: str = ""
    args: tuple[Any, ...] = ()
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    module: str = ""
    io: str = "output"
    call: int = 0
    rows: tuple[int, int] | None = None
    invoke: int = 0

    @property
    def key(self) -> tuple[str, str, int]:
        """Where a get/set node meets the model: (module, output|input, call)."""
        return (self.module, "output" if self.io == "output" else "input", self.call)


def refs_in(value: Any) -> Iterator[Ref]:
    """Every Ref inside an argument (nested tuples, lists, dicts, slices)."""
    if isinstance(value, Ref):
        yield value
    elif isinstance(value, (tuple, list)):
        for v in value:
            yield from refs_in(v)
    elif isinstance(value, Mapping):
        for v in value.values():
            yield from refs_in(v)
    elif isinstance(value, slice):
        for v in (value.start, value.stop, value.step):
            yield from refs_in(v)


@dataclass(frozen=True)
class Graph:
    """Nodes in creation order (node ``i`` has id ``i``) and the saved names."""

    nodes: tuple[Node, ...]
    saves: Mapping[str, int]

    def validate(self, module_names: frozenset[str] | None = None) -> Graph:
        """Raise GraphError naming the node at fault; return self. With ``module_names`` (the model's
        ``named_modules`` paths) also check that every get/set names an existing module."""
        for i, node in enumerate(self.nodes):
            _check_node(i, node, module_names)
            if node.kind == "apply" and node.op in ("backward", "grad", "set_grad"):
                _check_grad_node(i, node, self.nodes)
            if node.kind == "apply" and node.op == "stop" and (node.args or node.kwargs):
                raise GraphError(f"node {i}: stop takes no arguments")
        if not isinstance(self.saves, Mapping):
            raise GraphError(f"saves must map names to node ids, got {type(self.saves).__name__}")
        for name, target in self.saves.items():
            if not isinstance(name, str) or not name:
                raise GraphError(f"save names must be non-empty strings, got {name!r}")
            if isinstance(target, bool) or not isinstance(target, int) or not 0 <= target < len(self.nodes):
                raise GraphError(
                    f"save {name!r} refers to node {target!r}, not one of 0..{len(self.nodes) - 1}"
                )
        return self

    def modules(self) -> frozenset[str]:
        """The module paths that some get/set node references (only these get hooks)."""
        return frozenset(n.module for n in self.nodes if n.kind in ("get", "set"))


def _check_grad_node(i: int, node: Node, nodes: tuple[Node, ...]) -> None:
    """``backward(loss)``, ``grad(target, backward)``, ``set_grad(target, backward, value)``."""
    arity = {"backward": 1, "grad": 2, "set_grad": 3}[node.op]
    if len(node.args) != arity or node.kwargs:
        raise GraphError(f"node {i}: {node.op} takes {arity} positional argument(s) and no keywords")
    if not isinstance(node.args[0], Ref):
        raise GraphError(f"node {i}: the first argument of {node.op} must be a reference to a traced value")
    if node.op == "backward":
        return
    bw = node.args[1]
    if not isinstance(bw, Ref) or nodes[bw.id].kind != "apply" or nodes[bw.id].op != "backward":
        raise GraphError(f"node {i}: the second argument of {node.op} must refer to a backward node")


def _check_node(i: int, node: Node, module_names: frozenset[str] | None) -> None:
    if not isinstance(node, Node):
        raise GraphError(f"node {i} is a {type(node).__name__}, not a Node")
    if node.id != i:
        raise GraphError(f"node {i} has id {node.id!r}; ids must be 0, 1, 2, ... in order")
    if isinstance(node.invoke, bool) or not isinstance(node.invoke, int) or node.invoke < 0:
        raise GraphError(f"node {i}: invoke must be a non-negative int, got {node.invoke!r}")
    if node.kind not in KINDS:
        raise GraphError(f"node {i}: unknown kind {node.kind!r}; expected one of {KINDS}")
    for ref in refs_in((node.args, node.kwargs)):
        if isinstance(ref.id, bool) or not isinstance(ref.id, int) or not 0 <= ref.id < i:
            raise GraphError(
                f"node {i} refers to node {ref.id!r}; a node may only use earlier nodes (0..{i - 1})"
            )
    if node.kind == "apply":
        if not is_allowed(node.op):
            raise GraphError(f"node {i}: operation {node.op!r} is not on the allow-list")
        return
    if node.io not in IOS:
        raise GraphError(f"node {i}: io must be one of {IOS}, got {node.io!r}")
    if isinstance(node.call, bool) or not isinstance(node.call, int) or not 0 <= node.call < MAX_CALL:
        raise GraphError(f"node {i}: call must be an int in [0, {MAX_CALL}), got {node.call!r}")
    if node.rows is not None:
        ok = (
            isinstance(node.rows, tuple)
            and len(node.rows) == 2
            and all(isinstance(r, int) and not isinstance(r, bool) and r >= 0 for r in node.rows)
        )
        if not ok or node.rows[0] >= node.rows[1]:
            raise GraphError(
                f"node {i}: rows must be (start, stop) with 0 <= start < stop, got {node.rows!r}"
            )
    if not isinstance(node.module, str):
        raise GraphError(f"node {i}: module must be a dotted path string, got {node.module!r}")
    if module_names is not None and node.module not in module_names:
        raise GraphError(f"node {i}: the model has no module {node.module!r}")
    if node.kind == "set" and (len(node.args) != 1 or node.io == "inputs"):
        raise GraphError(f"node {i}: a set node takes one value and targets an output or input")
