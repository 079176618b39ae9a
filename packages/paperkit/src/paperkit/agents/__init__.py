"""paperkit.agents: the pieces an LLM-agent paper needs, backend-agnostic and offline-testable.

- Tools (:mod:`~paperkit.agents.tools`): :class:`ToolSpec` (name, description, JSON-schema parameters;
  ``schema()`` is the OpenAI ``tools`` entry), :class:`ToolCall`, the strict JSON-in-text grammar
  :func:`parse_tool_calls` / :func:`format_tool_call` (:class:`ToolCallError` for unknown tools and
  malformed arguments), :func:`tool_calls_from_openai`.
- Chat with tools (:mod:`~paperkit.agents.chat`): :class:`OpenAIToolChat` (native ``tools`` or the text
  grammar), :class:`ToolReply`, :func:`text_tool_reply`, :func:`text_tool_prompt`, :func:`batched_responder`.
- Judges (:mod:`~paperkit.agents.judge`): the :class:`Judge` protocol, :class:`ChatJudge`, :class:`RuleJudge`,
  :func:`parse_verdict` (unparseable = a counted error, never a default label), :func:`tally`.
- Episodes (:mod:`~paperkit.agents.episodes`): :func:`run_lockstep` drives many :class:`Episode` s with one
  batched model call per step, with max-steps, failure and repeat counters (:class:`RunStats`).

- Wire format (:mod:`~paperkit.agents.wire`): OpenAI ``tools`` / ``tool_calls`` / tool messages to and
  from the text grammar, for servers of text-only models (:func:`tool_specs_from_openai`,
  :func:`render_tool_conversation`, :func:`openai_tool_calls`, :func:`format_tool_result`,
  :class:`ToolRequestError`); paperkit.lm's server uses it.

Sentence embeddings for agent memory are in :mod:`paperkit.embed`. Nothing here imports torch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paperkit.exports import public_api

if TYPE_CHECKING:  # the public names, once: type checkers read them, public_api parses them
    from paperkit.agents.chat import (
        OpenAIToolChat,
        ToolReply,
        batched_responder,
        text_tool_prompt,
        text_tool_reply,
    )
    from paperkit.agents.episodes import Episode, EpisodeStats, RunStats, StepStatus, run_lockstep
    from paperkit.agents.judge import ChatJudge, Judge, JudgeTally, RuleJudge, Verdict, parse_verdict, tally
    from paperkit.agents.tools import (
        ToolCall,
        ToolCallError,
        ToolSpec,
        check_arguments,
        format_tool_call,
        parse_tool_calls,
        tool_calls_from_openai,
        tool_table,
    )
    from paperkit.agents.wire import (
        ToolRequestError,
        format_tool_result,
        openai_tool_calls,
        render_tool_conversation,
        tool_specs_from_openai,
    )


__getattr__, __dir__, __all__ = public_api(__name__, eager=())
