"""The JSON wire format of a graph, its inputs and its saved values (no pickle, no code, nothing executed).

A job::

    {"version": 1, "model_key": str, "inputs": [value, ...], "nodes": [node, ...], "saves": {name: id}}

A node is ``{"id", "kind": "apply", "invoke", "op", "args", "kwargs"}`` or ``{"id", "kind": "get"|"set",
"invoke", "module", "io", "call", "rows", "args"}`` with exactly those fields. A value is a JSON literal or
one of the tagged objects ``{"ref": id}``, ``{"tensor": {"dtype", "shape", "data"}}`` (base64 of the raw
little-endian bytes, so NaN/Inf travel exactly), ``{"tuple": [...]}``, ``{"slice": [start, stop, step]}``,
``{"ellipsis": true}``, ``{"dtype": name}``, ``{"float": "nan"|"inf"|"-inf"}`` or ``{"dict": {...}}``.
Anything else — a lambda, an open file, a custom object — is refused by :func:`to_json` on the client,
and an unknown tag, field or dtype by :func:`from_json` on the server. Gradient access travels as three
allow-listed ``apply`` ops (``backward``, ``grad``, ``set_grad``) whose args are references; a job may run
at most ``WireLimits.max_backward`` backward passes.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import torch

from intervention_graph.graph import Graph, GraphError, Node, Ref

__all__ = [
    "DTYPES",
    "FORMAT_VERSION",
    "Job",
    "WireLimits",
    "decode_value",
    "encode_value",
    "from_json",
    "job_from_json",
    "job_to_json",
    "to_json",
]

FORMAT_VERSION = 1
DTYPES: dict[str, torch.dtype] = {
    name: getattr(torch, name)
    for name in (
        "float64", "float32", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool",
        "complex64",
    )
}  # fmt: skip
_DTYPE_NAMES = {v: k for k, v in DTYPES.items()}
_APPLY_FIELDS = frozenset({"id", "kind", "invoke", "op", "args", "kwargs"})
_HOOK_FIELDS = frozenset({"id", "kind", "invoke", "module", "io", "call", "rows", "args"})
_JOB_FIELDS = frozenset({"version", "model_key", "inputs", "nodes", "saves"})
if sys.byteorder != "little":  # pragma: no cover - the wire format is little-endian raw bytes
    raise ImportError("intervention_graph's wire format needs a little-endian machine")


@dataclass(frozen=True)
class WireLimits:
    """Bounds :func:`from_json` enforces before anything runs (defaults: the spec's server defaults)."""

    max_nodes: int = 100_000
    max_tensor_bytes: int = 48 * 2**20  # all tensors of one job together (inside a 64 MiB body)
    max_depth: int = 32  # nesting of tagged values
    # a backward keeps the whole forward's autograd graph alive and costs about two forwards: cap them
    max_backward: int = 1


@dataclass(frozen=True)
class Job:
    """What a client sends: the graph, the model it is for, and one input batch per invoke."""

    model_key: str
    graph: Graph
    inputs: tuple[Any, ...]


# --- values --------------------------------------------------------------------------------------------


def encode_value(value: Any, depth: int = 0) -> Any:
    """A JSON-able form of ``value``; TypeError naming the type for anything not in the format."""
    if depth > 64:
        raise TypeError("a constant nests deeper than 64 levels")
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {"float": repr(value)}
    if isinstance(value, Ref):
        return {"ref": value.id}
    if isinstance(value, torch.Tensor):
        return {"tensor": _encode_tensor(value)}
    if isinstance(value, torch.dtype):
        if value not in _DTYPE_NAMES:
            raise TypeError(f"dtype {value} is not in the wire format")
        return {"dtype": _DTYPE_NAMES[value]}
    if isinstance(value, tuple):
        return {"tuple": [encode_value(v, depth + 1) for v in value]}
    if isinstance(value, list):
        return [encode_value(v, depth + 1) for v in value]
    if isinstance(value, slice):
        return {"slice": [encode_value(v, depth + 1) for v in (value.start, value.stop, value.step)]}
    if value is Ellipsis:
        return {"ellipsis": True}
    if isinstance(value, Mapping) and all(isinstance(k, str) for k in value):
        return {"dict": {k: encode_value(v, depth + 1) for k, v in value.items()}}
    raise TypeError(
        f"a {type(value).__name__} cannot be sent in an intervention graph (only literals, tensors, "
        "tuples, lists, slices, dtypes and str-keyed dicts travel)"
    )


def _encode_tensor(t: torch.Tensor) -> dict[str, Any]:
    if t.dtype not in _DTYPE_NAMES:
        raise TypeError(f"tensor dtype {t.dtype} is not in the wire format")
    raw = t.detach().cpu().contiguous().reshape(-1).view(torch.uint8).numpy().tobytes()
    return {"dtype": _DTYPE_NAMES[t.dtype], "shape": list(t.shape), "data": base64.b64encode(raw).decode()}


def _decode_tensor(obj: Any, budget: list[int]) -> torch.Tensor:
    if not isinstance(obj, dict) or set(obj) != {"dtype", "shape", "data"}:
        raise GraphError("a tensor is {'dtype', 'shape', 'data'} exactly")
    dtype = DTYPES.get(obj["dtype"]) if isinstance(obj["dtype"], str) else None
    if dtype is None:
        raise GraphError(f"unknown tensor dtype {obj['dtype']!r}; expected one of {sorted(DTYPES)}")
    shape = obj["shape"]
    if (
        not isinstance(shape, list)
        or len(shape) > 16
        or not all(isinstance(s, int) and not isinstance(s, bool) and 0 <= s < 2**40 for s in shape)
    ):
        raise GraphError(f"a tensor shape is a list of at most 16 non-negative ints, got {shape!r}")
    if not isinstance(obj["data"], str):
        raise GraphError("tensor data must be a base64 string")
    n = math.prod(shape) * torch.empty((), dtype=dtype).element_size()
    budget[0] -= n
    if budget[0] < 0:
        raise GraphError("the job's tensors exceed the tensor byte limit")
    try:
        raw = base64.b64decode(obj["data"], validate=True)
    except (binascii.Error, ValueError):
        raise GraphError("tensor data is not valid base64") from None
    if len(raw) != n:
        raise GraphError(
            f"tensor data holds {len(raw)} bytes; dtype {obj['dtype']} x shape {shape} needs {n}"
        )
    if n == 0:
        return torch.empty(shape, dtype=dtype)
    return torch.frombuffer(bytearray(raw), dtype=dtype).reshape(shape)


_TAGS = frozenset({"ref", "tensor", "tuple", "slice", "ellipsis", "dtype", "float", "dict"})


def decode_value(obj: Any, *, budget: list[int] | None = None, depth: int = 0, max_depth: int = 32) -> Any:
    """The value :func:`encode_value` made; GraphError for anything else. ``budget``: tensor bytes left."""
    budget = [WireLimits().max_tensor_bytes] if budget is None else budget
    if depth > max_depth:
        raise GraphError(f"a value nests deeper than {max_depth} levels")
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, list):
        return [decode_value(v, budget=budget, depth=depth + 1, max_depth=max_depth) for v in obj]
    if not isinstance(obj, dict) or len(obj) != 1 or next(iter(obj)) not in _TAGS:
        raise GraphError(
            f"unknown value {str(obj)[:80]}; expected a literal, a list or one of the tags {sorted(_TAGS)}"
        )
    (tag, body), sub = next(iter(obj.items())), depth + 1
    if tag == "ref":
        if isinstance(body, bool) or not isinstance(body, int):
            raise GraphError(f"a ref is an int node id, got {body!r}")
        return Ref(body)
    if tag == "tensor":
        return _decode_tensor(body, budget)
    if tag == "dtype":
        if body not in DTYPES:
            raise GraphError(f"unknown dtype {body!r}")
        return DTYPES[body]
    if tag == "float":
        if body not in ("nan", "inf", "-inf"):
            raise GraphError(f"a tagged float is 'nan', 'inf' or '-inf', got {body!r}")
        return float(body)
    if tag == "ellipsis":
        if body is not True:
            raise GraphError("an ellipsis is {'ellipsis': true}")
        return Ellipsis
    if tag == "slice":
        if not isinstance(body, list) or len(body) != 3:
            raise GraphError("a slice is [start, stop, step]")
        parts = [decode_value(v, budget=budget, depth=sub, max_depth=max_depth) for v in body]
        if not all(p is None or (isinstance(p, (int, Ref)) and not isinstance(p, bool)) for p in parts):
            raise GraphError("slice bounds are ints, refs or null")
        return slice(*parts)
    if tag == "tuple":
        if not isinstance(body, list):
            raise GraphError("a tuple is {'tuple': [...]}")
        return tuple(decode_value(v, budget=budget, depth=sub, max_depth=max_depth) for v in body)
    if not isinstance(body, dict):
        raise GraphError("a dict is {'dict': {...}}")
    return {str(k): decode_value(v, budget=budget, depth=sub, max_depth=max_depth) for k, v in body.items()}


# --- graphs and jobs -----------------------------------------------------------------------------------


def _encode_node(node: Node) -> dict[str, Any]:
    if node.kind == "apply":
        return {
            "id": node.id, "kind": "apply", "invoke": node.invoke, "op": node.op,
            "args": encode_value(list(node.args)), "kwargs": encode_value(dict(node.kwargs))["dict"],
        }  # fmt: skip
    return {
        "id": node.id, "kind": node.kind, "invoke": node.invoke, "module": node.module, "io": node.io,
        "call": node.call, "rows": None if node.rows is None else list(node.rows),
        "args": encode_value(list(node.args)),
    }  # fmt: skip


def _decode_node(obj: Any, budget: list[int], max_depth: int) -> Node:
    if not isinstance(obj, dict):
        raise GraphError("a node is a JSON object")
    fields = _APPLY_FIELDS if obj.get("kind") == "apply" else _HOOK_FIELDS
    if set(obj) != fields:
        extra, missing = sorted(set(obj) - fields), sorted(fields - set(obj))
        raise GraphError(f"node {obj.get('id')!r}: unexpected fields {extra}, missing fields {missing}")
    args = decode_value(obj["args"], budget=budget, max_depth=max_depth)
    if not isinstance(args, list):
        raise GraphError(f"node {obj['id']!r}: args must be a list")
    if obj["kind"] == "apply":
        kwargs = decode_value({"dict": obj["kwargs"]}, budget=budget, max_depth=max_depth)
        return Node(
            id=obj["id"], kind="apply", invoke=obj["invoke"], op=obj["op"], args=tuple(args), kwargs=kwargs
        )
    rows = obj["rows"]
    if rows is not None and not (isinstance(rows, list) and len(rows) == 2):
        raise GraphError(f"node {obj['id']!r}: rows must be null or [start, stop]")
    return Node(
        id=obj["id"], kind=obj["kind"], invoke=obj["invoke"], module=obj["module"], io=obj["io"],
        call=obj["call"], rows=None if rows is None else (rows[0], rows[1]), args=tuple(args),
    )  # fmt: skip


def _graph_dict(graph: Graph) -> dict[str, Any]:
    return {"nodes": [_encode_node(n) for n in graph.validate().nodes], "saves": dict(graph.saves)}


def _graph_from(obj: dict[str, Any], limits: WireLimits, budget: list[int]) -> Graph:
    nodes, saves = obj.get("nodes"), obj.get("saves")
    if not isinstance(nodes, list):
        raise GraphError("'nodes' must be a list")
    if len(nodes) > limits.max_nodes:
        raise GraphError(f"the graph has {len(nodes)} nodes; at most {limits.max_nodes} (limit: nodes)")
    if not isinstance(saves, dict):
        raise GraphError("'saves' must map names to node ids")
    graph = Graph(tuple(_decode_node(n, budget, limits.max_depth) for n in nodes), dict(saves))
    backwards = sum(n.kind == "apply" and n.op == "backward" for n in graph.nodes)
    if backwards > limits.max_backward:
        raise GraphError(
            f"the graph runs {backwards} backward passes; at most {limits.max_backward} (limit: backward)"
        )
    return graph.validate()


def to_json(graph: Graph) -> str:
    """The graph alone as JSON (TypeError for a constant the format cannot carry)."""
    return json.dumps({"version": FORMAT_VERSION, **_graph_dict(graph)}, allow_nan=False)


def from_json(text: str | bytes, limits: WireLimits = WireLimits()) -> Graph:
    """The graph :func:`to_json` wrote, validated (GraphError on anything else)."""
    obj = _loads(text)
    if set(obj) != {"version", "nodes", "saves"}:
        raise GraphError(f"a graph is {{'version', 'nodes', 'saves'}}, got fields {sorted(obj)}")
    return _graph_from(obj, limits, [limits.max_tensor_bytes])


def job_to_json(job: Job) -> str:
    """A whole job (graph, model key, invoke inputs) as JSON."""
    body = {"version": FORMAT_VERSION, "model_key": job.model_key, "inputs": encode_value(list(job.inputs))}
    return json.dumps(body | _graph_dict(job.graph), allow_nan=False)


def job_from_obj(obj: Any, limits: WireLimits = WireLimits()) -> Job:
    """A job from its parsed JSON object (the server's entry), validated."""
    if not isinstance(obj, dict) or set(obj) != _JOB_FIELDS:
        got = sorted(obj) if isinstance(obj, dict) else type(obj).__name__
        raise GraphError(f"a job has exactly the fields {sorted(_JOB_FIELDS)}, got {got}")
    if obj["version"] != FORMAT_VERSION:
        raise GraphError(f"unsupported format version {obj['version']!r}; this server reads {FORMAT_VERSION}")
    if not isinstance(obj["model_key"], str) or not obj["model_key"]:
        raise GraphError("'model_key' must be a non-empty string")
    budget = [limits.max_tensor_bytes]
    inputs = decode_value(obj["inputs"], budget=budget, max_depth=limits.max_depth)
    if not isinstance(inputs, list) or not inputs:
        raise GraphError("'inputs' must be a non-empty list, one entry per invoke")
    return Job(obj["model_key"], _graph_from(obj, limits, budget), tuple(inputs))


def job_from_json(text: str | bytes, limits: WireLimits = WireLimits()) -> Job:
    """:func:`job_from_obj` of a JSON text."""
    return job_from_obj(_loads(text), limits)


def _loads(text: str | bytes) -> dict[str, Any]:
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError) as err:
        raise GraphError(f"not valid JSON: {str(err)[:120]}") from None
    if not isinstance(obj, dict):
        raise GraphError("the JSON must be an object")
    return obj
