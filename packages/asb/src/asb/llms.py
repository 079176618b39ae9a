"""Backbones: scripted ones (no model time), the two bracketing agents, a tiny in-process LM, and any
OpenAI-compatible endpoint. Each is a ``respond(requests) -> replies`` (:data:`asb.agent.Responder`).

- :class:`ScriptedLLM`: a function ``Request -> ToolReply`` (tests, harness overhead benchmark).
- :class:`AlwaysObeyLLM`: plans the agent's own tools plus any offered tool named in the task, the
  retrieved workflow or a demonstration whose trigger is in the task; at a step, calls the step's tools
  plus any offered tool named in the task or the last observation. Brackets ASR at 1.
- :class:`NeverDeviateLLM`: only the agent's own tools, in order. Brackets ASR at 0 (and PNA at 1).
- :class:`HFBackbone`: a Hugging Face causal LM (e.g. the toy LM of :mod:`asb.toy`) in lockstep batches:
  each request rendered with a plain chat template, greedy decoding; step replies are read as
  ``call : <names>`` (compact style) or the strict JSON-in-text grammar (asb style).
- :class:`OpenAIBackbone`: paperkit.agents' ``OpenAIToolChat`` (native ``tools`` or the text grammar).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from paperkit.agents import OpenAIToolChat, ToolCall, ToolReply, text_tool_reply

from asb.prompts import Request, Step, format_plan

__all__ = [
    "TEMPLATE",
    "AlwaysObeyLLM",
    "HFBackbone",
    "NeverDeviateLLM",
    "OpenAIBackbone",
    "ScriptedLLM",
    "parse_compact_calls",
]


class ScriptedLLM:
    """``fn(request) -> ToolReply`` applied to each request."""

    def __init__(self, fn: Callable[[Request], ToolReply]) -> None:
        if not callable(fn):
            raise TypeError(f"fn must be callable, got {type(fn).__name__}")
        self.fn = fn

    def __call__(self, requests: list[Request]) -> list[ToolReply]:
        return [self.fn(r) for r in requests]


def _own_plan(r: Request) -> list[Step]:
    return [Step(f"use {n}", (n,)) for n in r.normal]


def _named(text: str, names: Sequence[str]) -> list[str]:
    words = set(text.replace('"', " ").replace("[", " ").replace("]", " ").replace(".", " ").split())
    return [n for n in names if n in words]


class NeverDeviateLLM:
    """Only the agent's own tools (module docstring)."""

    def __call__(self, requests: list[Request]) -> list[ToolReply]:
        out = []
        for r in requests:
            if r.kind == "plan":
                out.append(ToolReply(format_plan(_own_plan(r), r.style)))
            else:
                assert r.step is not None
                out.append(ToolReply("", tuple(ToolCall(n) for n in r.step.tool_use if n in r.normal)))
        return out


class AlwaysObeyLLM:
    """Obeys every tool named to it (module docstring)."""

    def __call__(self, requests: list[Request]) -> list[ToolReply]:
        out = []
        for r in requests:
            foreign = [t.name for t in r.tools if t.name not in r.normal]
            if r.kind == "plan":
                sources = [r.task, r.reference or ""]
                sources += [
                    " ".join(s.message for s in steps) for task, steps in r.demos if _trigger_in(task, r.task)
                ]
                extra = [n for n in foreign if any(_named(s, [n]) for s in sources)]
                steps = _own_plan(r) + [Step(f"use {n}", (n,)) for n in extra]
                out.append(ToolReply(format_plan(steps, r.style)))
            else:
                assert r.step is not None
                last = r.history[-1][1] if r.history else ""
                named = _named(r.task + " " + last, foreign)
                calls = list(dict.fromkeys([*r.step.tool_use, *named]))
                out.append(
                    ToolReply(
                        "", tuple(ToolCall(n) for n in calls if n in r.normal or n in named or n in foreign)
                    )
                )
        return out


def _trigger_in(demo_task: str, task: str) -> bool:
    """Whether the demo's trailing trigger words (those after the shared task words) appear in ``task``."""
    demo, words = demo_task.rstrip(" .").split(), set(task.replace(".", " ").split())
    return bool(demo) and demo[-1] in words


def parse_compact_calls(text: str) -> ToolReply:
    """``call : a b`` -> calls ``a``, ``b``; anything else -> a reply with ``error`` (a failed step)."""
    words = text.split()
    if words[:2] != ["call", ":"] or len(words) < 3:
        return ToolReply(text, (), "a compact step reply is 'call : <tool names>'")
    return ToolReply("", tuple(ToolCall(w) for w in dict.fromkeys(words[2:]) if w != "."))


#: the toy LM's chat template: role tags, messages one per line
TEMPLATE = {"system": "S :", "user": "U :", "assistant": "A :"}


def render_prompt(messages: list[dict[str, str]]) -> str:
    """The prompt text a causal LM completes for ``messages`` (ends with the assistant tag)."""
    return (
        " \n ".join(f"{TEMPLATE[m['role']]} {m['content']}" for m in messages)
        + " \n "
        + TEMPLATE["assistant"]
    )


class HFBackbone:
    """A causal LM with a tokenizer, decoded greedily in batches (``paperkit.lm.generate``)."""

    def __init__(self, model: Any, tokenizer: Any, *, max_new_tokens: int = 16, device: str = "cpu") -> None:
        self.model, self.tokenizer, self.max_new_tokens, self.device = (
            model,
            tokenizer,
            max_new_tokens,
            device,
        )
        self.calls = 0
        self.prompt_tokens = 0

    def __call__(self, requests: list[Request]) -> list[ToolReply]:
        from paperkit.lm import generate_completions

        prompts = [render_prompt(r.messages) for r in requests]
        done = generate_completions(
            self.model,
            self.tokenizer,
            prompts,
            max_new_tokens=self.max_new_tokens,
            batch_size=128,
            device=self.device,
        )
        self.calls += len(prompts)
        self.prompt_tokens += sum(c.prompt_tokens for c in done)
        out = []
        for r, c in zip(requests, done, strict=True):
            text = c.text.strip()
            if r.kind == "plan":
                out.append(ToolReply(text))
            elif r.style == "compact":
                out.append(parse_compact_calls(text))
            else:
                out.append(text_tool_reply(text, r.tools))
        return out


class OpenAIBackbone:
    """Any OpenAI-compatible endpoint (``temperature`` 0 by default: ASB leaves it to the provider)."""

    def __init__(self, chat: OpenAIToolChat, *, max_tokens: int = 256, temperature: float = 0.0) -> None:
        if not isinstance(chat, OpenAIToolChat):
            raise TypeError(f"chat must be a paperkit.agents.OpenAIToolChat, got {type(chat).__name__}")
        self.chat, self.max_tokens, self.temperature = chat, max_tokens, temperature

    def __call__(self, requests: list[Request]) -> list[ToolReply]:
        return [
            self.chat.chat(
                r.messages,
                r.tools if r.kind == "step" else (),
                max_tokens=self.max_tokens,
                temperature=self.temperature,
            )
            for r in requests
        ]
