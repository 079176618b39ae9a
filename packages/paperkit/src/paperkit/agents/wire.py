"""OpenAI's wire format for tools, both ways, for servers that render tools as text for their model.

A chat request may carry ``tools`` (``[{"type": "function", "function": {"name", "description",
"parameters"}}, ...]``), assistant messages with ``tool_calls`` and ``role: "tool"`` messages holding a
call's result. A text-only model sees none of that structure, so :func:`render_tool_conversation` turns
the conversation into plain system/user/assistant messages: the tools as :func:`text_tool_prompt`'s
instruction (a system message first), each earlier call as its ``<tool_call>`` block
(:func:`format_tool_call`) and each result as a ``<tool_result>`` block (:func:`format_tool_result`).
The model's reply is then read with the strict grammar (:func:`parse_tool_calls`) and returned as
``tool_calls`` (:func:`openai_tool_calls`). Every malformed piece raises :class:`ToolRequestError`, whose
``param`` names the request field at fault (``tools[1].function.name``), so a server can answer 400.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from paperkit.agents.chat import text_tool_prompt
from paperkit.agents.tools import ToolCall, ToolSpec, format_tool_call

__all__ = [
    "RESULT_CLOSE",
    "RESULT_OPEN",
    "ToolRequestError",
    "format_tool_result",
    "openai_tool_calls",
    "render_tool_conversation",
    "tool_specs_from_openai",
]

RESULT_OPEN, RESULT_CLOSE = "<tool_result>", "</tool_result>"
MAX_TOOLS = 128  # OpenAI's own limit on a request's tools
_NAME = re.compile(
    r"[A-Za-z0-9_-]{1,64}"
)  # OpenAI's function-name rule; keeps names out of the grammar's tags


class ToolRequestError(ValueError):
    """A malformed ``tools`` list or tool message; ``param`` is the request field at fault."""

    def __init__(self, message: str, param: str) -> None:
        super().__init__(message)
        self.param = param


def tool_specs_from_openai(tools: Any) -> list[ToolSpec]:
    """The :class:`ToolSpec` s of a request's ``tools``; :class:`ToolRequestError` for anything else
    (not a list, more than 128, an entry that is not a function tool, a missing or duplicate name,
    parameters that are not an object schema)."""
    if not isinstance(tools, list):
        raise ToolRequestError("'tools' must be a list of function tools", "tools")
    if len(tools) > MAX_TOOLS:
        raise ToolRequestError(f"'tools' holds {len(tools)} tools; at most {MAX_TOOLS}", "tools")
    specs: list[ToolSpec] = []
    for i, entry in enumerate(tools):
        where = f"tools[{i}]"
        if not isinstance(entry, Mapping) or entry.get("type") != "function":
            raise ToolRequestError(f"'{where}' must be an object with type 'function'", where)
        fn = entry.get("function")
        if not isinstance(fn, Mapping):
            raise ToolRequestError(f"'{where}.function' must be an object", f"{where}.function")
        name, description = fn.get("name"), fn.get("description", "")
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            raise ToolRequestError(
                f"'{where}.function.name' must be 1-64 letters, digits, '_' or '-' (OpenAI's rule), "
                f"got {json.dumps(name)[:80]}",
                f"{where}.function.name",
            )
        if name in {s.name for s in specs}:
            raise ToolRequestError(f"'tools' names the tool {name!r} twice", f"{where}.function.name")
        if not isinstance(description, str):
            raise ToolRequestError(
                f"'{where}.function.description' must be a string", f"{where}.function.description"
            )
        params = fn.get("parameters")
        try:
            specs.append(
                ToolSpec(name, description) if params is None else ToolSpec(name, description, params)
            )
        except (TypeError, ValueError) as err:
            raise ToolRequestError(
                f"'{where}.function.parameters': {err}", f"{where}.function.parameters"
            ) from err
    return specs


def format_tool_result(name: str, content: str) -> str:
    """A tool's result as the text block a text-only model reads: ``<tool_result>{"name", "content"}``."""
    return RESULT_OPEN + json.dumps({"name": name, "content": content}) + RESULT_CLOSE


def _assistant_calls(raw: Any, where: str) -> list[tuple[str, ToolCall]]:
    """``(id, call)`` of an assistant message's ``tool_calls`` (arguments a JSON object string)."""
    if not isinstance(raw, list):
        raise ToolRequestError(f"'{where}' must be a list", where)
    out = []
    for j, tc in enumerate(raw):
        at = f"{where}[{j}]"
        fn = tc.get("function") if isinstance(tc, Mapping) else None
        call_id = tc.get("id") if isinstance(tc, Mapping) else None
        if not isinstance(call_id, str) or not isinstance(fn, Mapping) or not isinstance(fn.get("name"), str):
            raise ToolRequestError(f"'{at}' must have a string 'id' and a 'function' with a 'name'", at)
        if tc.get("type", "function") != "function":
            raise ToolRequestError(f"'{at}.type' must be 'function'", f"{at}.type")
        try:
            args = json.loads(fn.get("arguments") or "{}")
        except (TypeError, json.JSONDecodeError) as err:
            raise ToolRequestError(f"'{at}.function.arguments' must be a JSON object string", at) from err
        if not isinstance(args, dict):
            raise ToolRequestError(f"'{at}.function.arguments' must be a JSON object string", at)
        out.append((call_id, ToolCall(fn["name"], args)))
    return out


def _content(m: Mapping[str, Any], where: str, *, optional: bool) -> str:
    content = m.get("content")
    if isinstance(content, list) and all(
        isinstance(p, Mapping) and p.get("type") == "text" and isinstance(p.get("text"), str) for p in content
    ):
        content = "".join(p["text"] for p in content)
    if content is None and optional:
        return ""
    if not isinstance(content, str):
        raise ToolRequestError(f"'{where}.content' must be a string", f"{where}.content")
    return content


def render_tool_conversation(messages: Sequence[Any], tools: Sequence[ToolSpec]) -> list[dict[str, str]]:
    """Plain ``{"role", "content"}`` messages for a text-only model (module docstring); the tools'
    instruction comes first when ``tools`` is not empty. Roles: system (``developer`` too), user,
    assistant (content may be null when it has ``tool_calls``) and tool (``tool_call_id`` naming an
    earlier call; rendered as a user message)."""
    out = [{"role": "system", "content": text_tool_prompt(tools)}] if tools else []
    names: dict[str, str] = {}
    for i, m in enumerate(messages):
        where = f"messages[{i}]"
        if not isinstance(m, Mapping):
            raise ToolRequestError(f"'{where}' must be an object", where)
        role = "system" if m.get("role") == "developer" else m.get("role")
        if role == "tool":
            call_id = m.get("tool_call_id")
            if call_id not in names:
                raise ToolRequestError(
                    f"'{where}.tool_call_id' must name a call of an earlier assistant message, "
                    f"got {json.dumps(call_id)}",
                    f"{where}.tool_call_id",
                )
            text = format_tool_result(names[call_id], _content(m, where, optional=False))
            out.append({"role": "user", "content": text})
            continue
        if role not in ("system", "user", "assistant"):
            raise ToolRequestError(
                f"'{where}.role' must be one of system, developer, user, assistant, tool; "
                f"got {json.dumps(m.get('role'))}",
                f"{where}.role",
            )
        calls = m.get("tool_calls") if role == "assistant" else None
        text = _content(m, where, optional=calls is not None)
        if calls is not None:
            pairs = _assistant_calls(calls, f"{where}.tool_calls")
            seen = [cid for cid, _ in pairs if cid in names]
            if seen or len({cid for cid, _ in pairs}) < len(pairs):
                raise ToolRequestError(
                    f"'{where}.tool_calls' repeats the call id {json.dumps((seen or [pairs[0][0]])[0])}",
                    f"{where}.tool_calls",
                )
            names.update((cid, c.name) for cid, c in pairs)
            text += "".join(format_tool_call(c) for _, c in pairs)
        out.append({"role": str(role), "content": text})
    return out


def openai_tool_calls(calls: Sequence[ToolCall]) -> list[dict[str, Any]]:
    """``calls`` in a response message's ``tool_calls`` shape, each with a fresh ``call_...`` id."""
    return [
        {
            "id": f"call_{uuid.uuid4().hex[:24]}",
            "type": "function",
            "function": {"name": c.name, "arguments": json.dumps(dict(c.arguments))},
        }
        for c in calls
    ]
