"""The tracing context: Envoy (a module's stand-in), Proxy (a value not computed yet) and Tracer.

``with wrap(model).trace(ids) as tr:`` records, instead of running, every read (``envoy.output``,
``.input``, ``.inputs``), write (``envoy.output = v``, ``proxy[idx] = v``) and operation on a Proxy
(operators, whitelisted tensor methods, ``torch.*`` functions via ``__torch_function__``, calling a
submodule's envoy) as nodes of a :class:`~intervention_graph.graph.Graph`. On exit the graph is validated
and run by the backend (local: :func:`~intervention_graph.executor.execute`; remote: a
:class:`~intervention_graph.remote.RemoteBackend`). ``proxy.save()`` returns a :class:`Saved` handle
whose ``.value`` is filled then. ``tr.invoke(x)`` adds a batch to the same forward; the reads and
writes inside it see only its rows. A Proxy has no value while tracing, so Python control flow on it
(``if proxy > 0``), ``len``, iteration or conversion raise TypeError; used after its trace it raises
RuntimeError.

Gradients (as in nnsight 0.8): ``with loss.backward():`` on a traced scalar opens a backward block; inside
it ``h.grad`` is the gradient reaching an earlier traced tensor ``h`` and ``h.grad = value`` replaces it for
the rest of the backward pass. Gradients arrive in reverse forward order, so edits go later layers first.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any, Protocol

import torch
from torch import nn

from intervention_graph.executor import execute
from intervention_graph.graph import Graph, GraphError, Node, Ref
from intervention_graph.ops import ALLOWED_OPS, TORCH_FUNCTIONS

__all__ = ["Backend", "BackwardBlock", "Envoy", "LocalBackend", "Proxy", "Saved", "Tracer", "wrap"]


class Backend(Protocol):
    """Runs a finished trace: ``run(graph, model, inputs) -> {save name: value}``."""

    def run(self, graph: Graph, envoy: Envoy, inputs: tuple[Any, ...]) -> dict[str, Any]: ...


class LocalBackend:
    """Execute in this process with :func:`~intervention_graph.executor.execute`."""

    def run(self, graph: Graph, envoy: Envoy, inputs: tuple[Any, ...]) -> dict[str, Any]:
        return execute(graph, envoy.module, inputs)


class Saved:
    """A saved value: ``.value`` once the trace has run (RuntimeError before)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._value: Any = None
        self._done = False

    @property
    def value(self) -> Any:
        if not self._done:
            raise RuntimeError(f"saved value {self.name!r} is not available until its trace has run")
        return self._value

    def fill(self, value: Any) -> None:
        self._value, self._done = value, True

    def __repr__(self) -> str:
        return f"Saved({self.name!r}, ready={self._done})"


def _no_value(what: str) -> TypeError:
    return TypeError(
        f"a Proxy has no value while tracing, so it cannot be used in {what}; compute on it with tensor "
        "operations, or save() it and read .value after the trace"
    )


class Proxy:
    """A value of the intervention graph (node ``node_id`` of ``tracer``)."""

    __slots__ = ("node_id", "tracer")

    def __init__(self, tracer: Tracer, node_id: int) -> None:
        self.tracer, self.node_id = tracer, node_id

    def _op(self, op: str, *args: Any, **kwargs: Any) -> Proxy:
        return self.tracer.apply(op, args, kwargs)

    def save(self, name: str | None = None) -> Saved:
        """Mark this value to be returned; its handle's ``.value`` is filled when the trace has run."""
        return self.tracer.save(self, name)

    @property
    def grad(self) -> Proxy:
        """The gradient reaching this value in the enclosing ``with loss.backward():`` block."""
        return self.tracer.grad(self)

    @grad.setter
    def grad(self, value: Any) -> None:
        self.tracer.set_grad(self, value)

    def backward(self) -> BackwardBlock:
        """Record a backward pass from this (one-element) value; use as ``with loss.backward(): ...``."""
        return self.tracer.backward(self)

    # Python operators
    def __add__(self, o: Any) -> Proxy:
        return self._op("add", self, o)

    def __radd__(self, o: Any) -> Proxy:
        return self._op("add", o, self)

    def __sub__(self, o: Any) -> Proxy:
        return self._op("sub", self, o)

    def __rsub__(self, o: Any) -> Proxy:
        return self._op("sub", o, self)

    def __mul__(self, o: Any) -> Proxy:
        return self._op("mul", self, o)

    def __rmul__(self, o: Any) -> Proxy:
        return self._op("mul", o, self)

    def __truediv__(self, o: Any) -> Proxy:
        return self._op("truediv", self, o)

    def __rtruediv__(self, o: Any) -> Proxy:
        return self._op("truediv", o, self)

    def __matmul__(self, o: Any) -> Proxy:
        return self._op("matmul", self, o)

    def __pow__(self, o: Any) -> Proxy:
        return self._op("pow", self, o)

    def __neg__(self) -> Proxy:
        return self._op("neg", self)

    def __lt__(self, o: Any) -> Proxy:
        return self._op("lt", self, o)

    def __le__(self, o: Any) -> Proxy:
        return self._op("le", self, o)

    def __gt__(self, o: Any) -> Proxy:
        return self._op("gt", self, o)

    def __ge__(self, o: Any) -> Proxy:
        return self._op("ge", self, o)

    def __getitem__(self, index: Any) -> Proxy:
        return self._op("getitem", self, index)

    def __setitem__(self, index: Any, value: Any) -> None:
        self.tracer.apply("setitem", (self, index, value), {})

    def __getattr__(self, name: str) -> Any:
        if name in ALLOWED_OPS and name not in {"getitem", "add", "sub", "mul", "truediv", "neg"}:
            return lambda *a, **k: self._op(name, self, *a, **k)
        raise AttributeError(f"Proxy has no attribute {name!r} (tensor methods on the allow-list: "
                             f"{', '.join(sorted(ALLOWED_OPS))})")  # fmt: skip

    @classmethod
    def __torch_function__(cls, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        name = getattr(func, "__name__", "")
        tracer = next(a.tracer for a in _flat(args) if isinstance(a, Proxy))
        if name not in TORCH_FUNCTIONS:
            raise TypeError(f"torch.{name} is not on the intervention graph's allow-list")
        return tracer.apply(name, tuple(args), dict(kwargs or {}))

    def __bool__(self) -> bool:
        raise _no_value("Python control flow (if/while/and/or)")

    def __len__(self) -> int:
        raise _no_value("len()")

    def __iter__(self) -> Iterator[Any]:
        raise _no_value("iteration")

    def __index__(self) -> int:
        raise _no_value("an index or int()")

    def __float__(self) -> float:
        raise _no_value("float()")

    def __repr__(self) -> str:
        return f"Proxy(node {self.node_id})"


def _flat(value: Any) -> Iterator[Any]:
    if isinstance(value, (tuple, list)):
        for v in value:
            yield from _flat(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _flat(v)
    else:
        yield value


class BackwardBlock:
    """The ``with loss.backward():`` block: inside it ``.grad`` reads and writes refer to this backward."""

    def __init__(self, tracer: Tracer, node_id: int) -> None:
        self.tracer, self.node_id = tracer, node_id

    def __enter__(self) -> BackwardBlock:
        if self.tracer.backward_id is not None:
            raise RuntimeError("backward blocks do not nest")
        self.tracer.backward_id = self.node_id
        return self

    def __exit__(self, *exc: object) -> None:
        self.tracer.backward_id = None


class Envoy:
    """A module's stand-in: children by attribute (``envoy.transformer.h[2]``), reads ``.output``,
    ``.input`` (the first argument), ``.inputs`` (``(args, kwargs)``), writes ``.output = v`` /
    ``.input = v``, ``.next()`` for the module's next call, ``envoy(proxy)`` to run the module on a value."""

    module: nn.Module
    path: str
    call: int
    root: Envoy
    tracer: Tracer | None

    def __init__(self, module: nn.Module, path: str = "", call: int = 0, root: Envoy | None = None) -> None:
        if not isinstance(module, nn.Module):
            raise TypeError(f"model must be an nn.Module, got {type(module).__name__}")
        object.__setattr__(self, "module", module)
        object.__setattr__(self, "path", path)
        object.__setattr__(self, "call", call)
        object.__setattr__(self, "root", root or self)
        object.__setattr__(self, "tracer", None)

    def _child(self, name: str) -> Envoy:
        sub = self.module.get_submodule(name)
        path = f"{self.path}.{name}" if self.path else name
        return Envoy(sub, path, 0, self.root)

    def __getattr__(self, name: str) -> Envoy:
        if name.startswith("__"):
            raise AttributeError(name)
        if name not in dict(self.module.named_children()):
            raise AttributeError(f"module {self.path or '<model>'} has no submodule {name!r}")
        return self._child(name)

    def __getitem__(self, index: int) -> Envoy:
        names = list(dict(self.module.named_children()))
        if isinstance(index, bool) or not isinstance(index, int) or not -len(names) <= index < len(names):
            raise IndexError(f"module {self.path or '<model>'} has {len(names)} children; index {index!r}")
        return self._child(names[index])

    def next(self, steps: int = 1) -> Envoy:
        """The same module at its next call (modules run several times in one forward, generation)."""
        return Envoy(self.module, self.path, self.call + steps, self.root)

    def _tracer(self) -> Tracer:
        tracer = self.root.tracer
        if tracer is None:
            raise RuntimeError(f"{self.path or '<model>'}: .input/.output exist only inside model.trace(...)")
        return tracer

    @property
    def output(self) -> Proxy:
        return self._tracer().get(self, "output")

    @output.setter
    def output(self, value: Any) -> None:
        self._tracer().set(self, "output", value)

    @property
    def input(self) -> Proxy:
        return self._tracer().get(self, "input")

    @input.setter
    def input(self, value: Any) -> None:
        self._tracer().set(self, "input", value)

    @property
    def inputs(self) -> Proxy:
        return self._tracer().get(self, "inputs")

    def __setattr__(self, name: str, value: Any) -> None:
        if name in ("output", "input"):
            type(self).__dict__[name].__set__(self, value)  # the property's setter records a set node
            return
        raise AttributeError(f"cannot set {name!r} on an Envoy (only .output and .input)")

    def __call__(self, *args: Any, **kwargs: Any) -> Proxy:
        return self._tracer().apply("call_module", (self.path, *args), kwargs)

    def trace(self, *inputs: Any, backend: Backend | None = None) -> Tracer:
        """A tracing context on this (root) envoy; ``inputs`` (if any) are the first invoke."""
        if self.root is not self:
            raise RuntimeError("trace() is called on the wrapped model, not on a submodule")
        return Tracer(self, *inputs, backend=backend)

    def __repr__(self) -> str:
        return f"Envoy({self.path or '<model>'}, {type(self.module).__name__}, call={self.call})"


def wrap(model: nn.Module) -> Envoy:
    """The root Envoy of ``model`` (any ``nn.Module``; for HF models ``model.transformer.h[i]`` etc.)."""
    return Envoy(model)


class Tracer:
    """The context of one trace; see the module docstring. ``graph`` and ``saved`` after exit."""

    def __init__(self, envoy: Envoy, *inputs: Any, backend: Backend | None = None) -> None:
        self.envoy, self.backend = envoy, backend or LocalBackend()
        self.nodes: list[Node] = []
        self.saves: dict[str, int] = {}
        self.handles: dict[str, Saved] = {}
        self.inputs: list[Any] = []
        self.rows: tuple[int, int] | None = None
        self.stream = 0
        self.open = False
        self.graph: Graph | None = None
        self.backward_id: int | None = None
        self._first = inputs

    # --- context ---------------------------------------------------------------------------------------

    def __enter__(self) -> Tracer:
        if self.envoy.tracer is not None:
            raise RuntimeError("this model is already being traced; traces do not nest")
        object.__setattr__(self.envoy, "tracer", self)
        self.open = True
        if self._first:
            self.begin_invoke(self._first[0] if len(self._first) == 1 else self._first)
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        self.open = False
        object.__setattr__(self.envoy, "tracer", None)
        if exc_type is not None:
            return
        if not self.inputs:
            raise ValueError("a trace needs inputs: model.trace(x) or tr.invoke(x)")
        self.graph = Graph(tuple(self.nodes), dict(self.saves)).validate()
        values = self.backend.run(self.graph, self.envoy, tuple(self.inputs))
        for name, handle in self.handles.items():
            handle.fill(values[name])

    def begin_invoke(self, x: Any) -> None:
        if not isinstance(x, torch.Tensor) or x.ndim < 1 or x.shape[0] < 1:
            raise TypeError("an invoke's input must be a tensor with a non-empty batch dimension")
        start = sum(int(t.shape[0]) for t in self.inputs)
        self.stream = len(self.inputs)
        self.inputs.append(x)
        self.rows = (start, start + int(x.shape[0]))

    @contextlib.contextmanager
    def invoke(self, x: Any) -> Iterator[Tracer]:
        """Add the batch ``x`` to this trace's forward; reads and writes inside see only its rows."""
        self.check_open()
        self.begin_invoke(x)
        try:
            yield self
        finally:
            self.rows = None

    def check_open(self) -> None:
        if not self.open:
            raise RuntimeError("this Proxy's trace has ended; a Proxy is usable only inside its trace")

    # --- recording ---------------------------------------------------------------------------------------

    def add(self, **fields: Any) -> Proxy:
        self.check_open()
        node = Node(id=len(self.nodes), invoke=self.stream, **fields)
        self.nodes.append(node)
        return Proxy(self, node.id)

    def lift(self, value: Any) -> Any:
        if isinstance(value, Proxy):
            if value.tracer is not self:
                raise RuntimeError(
                    "a Proxy of another trace was used; a Proxy is usable only inside its trace"
                )
            return Ref(value.node_id)
        if isinstance(value, (tuple, list)):
            return type(value)(self.lift(v) for v in value)
        if isinstance(value, dict):
            return {k: self.lift(v) for k, v in value.items()}
        if isinstance(value, slice):
            return slice(self.lift(value.start), self.lift(value.stop), self.lift(value.step))
        return value

    def apply(self, op: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Proxy:
        return self.add(kind="apply", op=op, args=self.lift(tuple(args)), kwargs=self.lift(dict(kwargs)))

    def get(self, envoy: Envoy, io: str) -> Proxy:
        return self.add(kind="get", module=envoy.path, io=io, call=envoy.call, rows=self.rows)

    def set(self, envoy: Envoy, io: str, value: Any) -> None:
        self.add(
            kind="set", module=envoy.path, io=io, call=envoy.call, rows=self.rows, args=(self.lift(value),)
        )

    def backward(self, loss: Proxy) -> BackwardBlock:
        return BackwardBlock(self, self.apply("backward", (loss,), {}).node_id)

    def _backward_ref(self, what: str) -> Ref:
        self.check_open()
        if self.backward_id is None:
            raise RuntimeError(f"{what} exists only inside a backward block: `with loss.backward(): ...`")
        return Ref(self.backward_id)

    def grad(self, target: Proxy) -> Proxy:
        bw = self._backward_ref("`.grad`")
        return self.add(kind="apply", op="grad", args=(self.lift(target), bw), kwargs={})

    def set_grad(self, target: Proxy, value: Any) -> None:
        bw = self._backward_ref("setting `.grad`")
        self.add(kind="apply", op="set_grad", args=(self.lift(target), bw, self.lift(value)), kwargs={})

    def stop(self) -> None:
        """End the forward here: once this invoke's earlier nodes have run, the later modules are skipped
        (an early exit after the last module the trace needs)."""
        self.add(kind="apply", op="stop", args=(), kwargs={})

    def save(self, proxy: Proxy, name: str | None) -> Saved:
        self.check_open()
        name = name if name is not None else f"save{len(self.saves)}"
        if not isinstance(name, str) or not name or name in self.saves:
            raise ValueError(f"save name must be a new non-empty string, got {name!r}")
        self.saves[name] = proxy.node_id
        self.handles[name] = Saved(name)
        return self.handles[name]

    @property
    def saved(self) -> dict[str, Any]:
        """The saved values by name (after the trace)."""
        if self.graph is None:
            raise GraphError("the trace has not run")
        return {name: h.value for name, h in self.handles.items()}
