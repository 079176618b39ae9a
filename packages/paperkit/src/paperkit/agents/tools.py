"""Tools for chat agents: a tool's schema, a strict JSON-in-text call grammar, and OpenAI-style calls.

The text grammar (for backbones without native tool calling) is one block per call::

    <tool_call>{"name": "search", "arguments": {"query": "quantum"}}</tool_call>

A block holds exactly one JSON object with the keys ``name`` (a known tool) and ``arguments`` (an object
that satisfies the tool's parameter schema: required keys present, no unknown keys, JSON types as
declared). Anything else inside a block, an unclosed block or a nested one is a :class:`ToolCallError`:
the parser never guesses, so a malformed call is a counted failure, not a silent "no call".
Text outside the blocks is returned as the reply's text ("thinking").
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "CALL_CLOSE",
    "CALL_OPEN",
    "ToolCall",
    "ToolCallError",
    "ToolSpec",
    "check_arguments",
    "format_tool_call",
    "parse_tool_calls",
    "tool_calls_from_openai",
    "tool_table",
]

CALL_OPEN, CALL_CLOSE = "<tool_call>", "</tool_call>"
_JSON_TYPES: Mapping[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
    "null": (type(None),),
}


class ToolCallError(ValueError):
    """A tool call that cannot be executed: unknown tool, malformed block or arguments."""


def _empty_schema() -> dict[str, Any]:
    return {"type": "object", "properties": {}, "required": []}


@dataclass(frozen=True)
class ToolSpec:
    """A tool an agent may call: ``parameters`` is a JSON-schema object (``properties``, ``required``)."""

    name: str
    description: str = ""
    parameters: Mapping[str, Any] = field(default_factory=_empty_schema)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError(f"ToolSpec.name must be a non-empty str, got {self.name!r}")
        if not isinstance(self.description, str):
            raise TypeError(f"ToolSpec.description must be a str, got {type(self.description).__name__}")
        params = self.parameters
        if not isinstance(params, Mapping) or params.get("type", "object") != "object":
            raise ValueError(f"ToolSpec {self.name!r}: parameters must be a JSON schema of type 'object'")
        props = params.get("properties", {})
        if not isinstance(props, Mapping):
            raise ValueError(f"ToolSpec {self.name!r}: parameters['properties'] must be a mapping")
        missing = [k for k in params.get("required", []) if k not in props]
        if missing:
            raise ValueError(f"ToolSpec {self.name!r}: required {missing} not among properties")

    def schema(self) -> dict[str, Any]:
        """The OpenAI ``tools`` entry: ``{"type": "function", "function": {name, description,
        parameters}}``."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": dict(self.parameters),
            },
        }


@dataclass(frozen=True)
class ToolCall:
    """One call: the tool's name and its (checked) arguments."""

    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)


def tool_table(tools: Sequence[ToolSpec]) -> dict[str, ToolSpec]:
    """``name -> spec``; ValueError on duplicate names or non-ToolSpec items (names the index)."""
    if isinstance(tools, (str, bytes)) or not isinstance(tools, Sequence):
        raise TypeError(f"tools must be a sequence of ToolSpec, got {type(tools).__name__}")
    table: dict[str, ToolSpec] = {}
    for i, t in enumerate(tools):
        if not isinstance(t, ToolSpec):
            raise TypeError(f"tools[{i}] must be a ToolSpec, got {type(t).__name__}")
        if t.name in table:
            raise ValueError(f"tools has the name {t.name!r} twice (tools[{i}])")
        table[t.name] = t
    return table


def check_arguments(spec: ToolSpec, arguments: Any) -> dict[str, Any]:
    """``arguments`` checked against ``spec.parameters``; :class:`ToolCallError` naming the key."""
    if not isinstance(arguments, dict):
        raise ToolCallError(
            f"tool {spec.name!r}: arguments must be a JSON object, got {type(arguments).__name__}"
        )
    props: Mapping[str, Any] = spec.parameters.get("properties", {})
    for key in spec.parameters.get("required", []):
        if key not in arguments:
            raise ToolCallError(f"tool {spec.name!r}: missing required argument {key!r}")
    for key, value in arguments.items():
        if key not in props:
            raise ToolCallError(f"tool {spec.name!r}: unknown argument {key!r}; known: {sorted(props)}")
        kind = props[key].get("type") if isinstance(props[key], Mapping) else None
        types = _JSON_TYPES.get(kind) if isinstance(kind, str) else None
        bool_as_number = isinstance(value, bool) and kind in ("integer", "number")
        if types is not None and (not isinstance(value, types) or bool_as_number):
            raise ToolCallError(
                f"tool {spec.name!r}: argument {key!r} must be of JSON type {kind}, "
                f"got {type(value).__name__}"
            )
    return dict(arguments)


def _call_from_object(obj: Any, table: Mapping[str, ToolSpec], where: str) -> ToolCall:
    if not isinstance(obj, dict) or set(obj) != {"name", "arguments"}:
        raise ToolCallError(
            f"{where}: a call must be a JSON object with exactly the keys 'name' and 'arguments'"
        )
    name = obj["name"]
    if not isinstance(name, str) or name not in table:
        raise ToolCallError(f"{where}: unknown tool {name!r}; known tools: {sorted(table)}")
    return ToolCall(name, check_arguments(table[name], obj["arguments"]))


def parse_tool_calls(text: str, tools: Sequence[ToolSpec]) -> tuple[str, list[ToolCall]]:
    """Split a reply into its text and its calls, strictly (module docstring).

    Returns ``(text outside the blocks, stripped; calls in order)``. Raises :class:`ToolCallError`
    (a ValueError) for an unclosed or nested block, a block that is not one JSON object, an unknown
    tool or arguments that break the tool's schema; TypeError when ``text`` is not a str.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    table = tool_table(tools)
    calls: list[ToolCall] = []
    outside: list[str] = []
    rest = text
    while True:
        start = rest.find(CALL_OPEN)
        stray = rest.find(CALL_CLOSE)
        if stray != -1 and (start == -1 or stray < start):
            raise ToolCallError(f"call {len(calls)}: {CALL_CLOSE} without an opening {CALL_OPEN}")
        if start == -1:
            outside.append(rest)
            break
        outside.append(rest[:start])
        body_start = start + len(CALL_OPEN)
        end = rest.find(CALL_CLOSE, body_start)
        if end == -1:
            raise ToolCallError(f"call {len(calls)}: {CALL_OPEN} is never closed by {CALL_CLOSE}")
        body = rest[body_start:end]
        if CALL_OPEN in body:
            raise ToolCallError(f"call {len(calls)}: nested {CALL_OPEN}")
        try:
            obj = json.loads(body)
        except json.JSONDecodeError as err:
            raise ToolCallError(f"call {len(calls)}: not valid JSON ({err.msg} at char {err.pos})") from err
        calls.append(_call_from_object(obj, table, f"call {len(calls)}"))
        rest = rest[end + len(CALL_CLOSE) :]
    return "".join(outside).strip(), calls


def format_tool_call(call: ToolCall) -> str:
    """The text block :func:`parse_tool_calls` reads back as ``call`` (what a model is trained to write)."""
    return CALL_OPEN + json.dumps({"name": call.name, "arguments": dict(call.arguments)}) + CALL_CLOSE


def tool_calls_from_openai(tool_calls: Any, tools: Sequence[ToolSpec]) -> list[ToolCall]:
    """Checked :class:`ToolCall` s from an OpenAI message's ``tool_calls`` (objects or dicts, whose
    ``function.arguments`` is a JSON string), with the same strictness as the text grammar."""
    table = tool_table(tools)
    out = []
    for i, tc in enumerate(tool_calls or ()):
        fn = tc.get("function") if isinstance(tc, Mapping) else getattr(tc, "function", None)
        name = fn.get("name") if isinstance(fn, Mapping) else getattr(fn, "name", None)
        raw = fn.get("arguments") if isinstance(fn, Mapping) else getattr(fn, "arguments", None)
        try:
            args = (
                json.loads(raw)
                if isinstance(raw, str) and raw.strip()
                else ({} if raw in (None, "") else raw)
            )
        except json.JSONDecodeError as err:
            raise ToolCallError(f"tool_calls[{i}]: arguments are not valid JSON ({err.msg})") from err
        out.append(_call_from_object({"name": name, "arguments": args}, table, f"tool_calls[{i}]"))
    return out
