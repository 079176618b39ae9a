"""Chat with tools: native OpenAI-style ``tools`` where the endpoint supports them, the strict
JSON-in-text grammar (:mod:`paperkit.agents.tools`) where it does not, and a batched responder.

:class:`OpenAIToolChat` sends ``tools`` and reads ``message.tool_calls`` from endpoints that support them
(paperkit.lm's server, which renders them for its model with this grammar; vLLM, OpenAI, ollama), and
:func:`text_tool_prompt` + :func:`parse_tool_calls` give any text-only backbone the same calls.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from paperkit.agents.tools import (
    CALL_CLOSE,
    CALL_OPEN,
    ToolCall,
    ToolSpec,
    parse_tool_calls,
    tool_calls_from_openai,
    tool_table,
)

__all__ = ["OpenAIToolChat", "ToolReply", "batched_responder", "text_tool_prompt", "text_tool_reply"]


@dataclass(frozen=True)
class ToolReply:
    """An assistant turn: its ``text`` and its checked tool ``calls``; ``error`` when they did not parse."""

    text: str
    calls: tuple[ToolCall, ...] = field(default=())
    error: str | None = None


def text_tool_prompt(tools: Sequence[ToolSpec]) -> str:
    """The instruction that teaches a text-only model the call grammar, with the tools' JSON schemas."""
    schemas = json.dumps([t.schema()["function"] for t in tool_table(tools).values()])
    return (
        f"You can call these tools: {schemas}. To call one, write {CALL_OPEN}"
        '{"name": <tool name>, "arguments": {<arguments>}}' + f"{CALL_CLOSE}; one block per call."
    )


def text_tool_reply(text: str, tools: Sequence[ToolSpec]) -> ToolReply:
    """Parse ``text`` with the strict grammar; a malformed reply becomes a :class:`ToolReply` with
    ``error`` set (and no calls), so the caller can count it as a failed step."""
    try:
        rest, calls = parse_tool_calls(text, tools)
    except ValueError as err:
        return ToolReply(text, (), str(err))
    return ToolReply(rest, tuple(calls))


class OpenAIToolChat:
    """Any OpenAI-compatible endpoint, with native ``tools`` (``native_tools=True``) or the text grammar.

    Args:
        base_url, model, api_key, timeout, max_retries: as for the official ``openai.OpenAI`` client.
        native_tools: send ``tools`` and read ``message.tool_calls``; ``False`` adds
            :func:`text_tool_prompt` as a system message and parses the text instead.
    """

    def __init__(
        self,
        base_url: str,
        *,
        model: str,
        api_key: str = "none",
        native_tools: bool = True,
        timeout: float = 600.0,
        max_retries: int = 2,
    ) -> None:
        import openai

        for name, value in (("base_url", base_url), ("api_key", api_key), ("model", model)):
            if not isinstance(value, str) or not value:
                raise TypeError(f"{name} must be a non-empty str, got {value!r}")
        self.model, self.native_tools = model, bool(native_tools)
        self.client = openai.OpenAI(
            base_url=base_url, api_key=api_key, timeout=timeout, max_retries=max_retries
        )

    def chat(
        self,
        messages: list[dict[str, str]],
        tools: Sequence[ToolSpec] = (),
        *,
        max_tokens: int = 256,
        temperature: float = 0.0,
    ) -> ToolReply:
        """One assistant turn for ``messages`` with ``tools`` available (none: a plain completion)."""
        msgs = list(messages)
        extra: dict[str, Any] = {}
        if tools and self.native_tools:
            extra["tools"] = [t.schema() for t in tool_table(tools).values()]
        elif tools:
            msgs = [{"role": "system", "content": text_tool_prompt(tools)}, *msgs]
        response = self.client.chat.completions.create(
            model=self.model,
            messages=msgs,  # type: ignore[arg-type]
            max_tokens=max_tokens,
            temperature=temperature,
            **extra,
        )
        message = response.choices[0].message
        text = message.content or ""
        if not tools:
            return ToolReply(text)
        if not self.native_tools:
            return text_tool_reply(text, tools)
        if not message.tool_calls and (CALL_OPEN in text or CALL_CLOSE in text):
            # a server that renders tools as text returns blocks it could not parse as text: count them
            return text_tool_reply(text, tools)
        try:
            return ToolReply(text, tuple(tool_calls_from_openai(message.tool_calls, tools)))
        except ValueError as err:
            return ToolReply(text, (), str(err))


def batched_responder(
    complete_prompts: Callable[..., Sequence[Any]],
    render: Callable[[Any], str],
    *,
    max_tokens: int,
    temperature: float = 0.0,
) -> Callable[[list[Any]], list[str]]:
    """A ``respond`` for :func:`paperkit.agents.run_lockstep` over an in-process model: each request is
    rendered to a prompt by ``render`` and all prompts of a step go to ``complete_prompts`` (e.g.
    ``HFChatModel.complete_prompts``) as one batch; returns the completions' texts."""
    if not callable(complete_prompts) or not callable(render):
        raise TypeError("complete_prompts and render must be callable")

    def respond(requests: list[Any]) -> list[str]:
        if not requests:
            return []
        out = complete_prompts([render(r) for r in requests], max_tokens=max_tokens, temperature=temperature)
        return [c if isinstance(c, str) else c.text for c in out]

    return respond
