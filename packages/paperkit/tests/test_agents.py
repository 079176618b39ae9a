"""paperkit.agents: the strict tool-call grammar, verdict parsing, and the lockstep runner."""

from __future__ import annotations

import json

import pytest
from paperkit.agents import (
    RuleJudge,
    StepStatus,
    ToolCall,
    ToolCallError,
    ToolSpec,
    batched_responder,
    format_tool_call,
    parse_tool_calls,
    parse_verdict,
    run_lockstep,
    tally,
    text_tool_prompt,
    text_tool_reply,
    tool_calls_from_openai,
)

SEARCH = ToolSpec(
    "search",
    "search the web",
    {
        "type": "object",
        "properties": {"query": {"type": "string"}, "k": {"type": "integer"}},
        "required": ["query"],
    },
)
CLOCK = ToolSpec("clock")


def test_round_trip_and_text_outside_blocks() -> None:
    calls = [ToolCall("search", {"query": "quantum", "k": 3}), ToolCall("clock", {})]
    text = "let me look. " + "".join(format_tool_call(c) for c in calls) + " done"
    rest, parsed = parse_tool_calls(text, [SEARCH, CLOCK])
    assert parsed == calls
    assert rest == "let me look.  done"
    assert parse_tool_calls("no calls here", [SEARCH]) == ("no calls here", [])


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ('<tool_call>{"name": "delete", "arguments": {}}</tool_call>', "unknown tool 'delete'"),
        ('<tool_call>{"name": "search", "arguments": {}}</tool_call>', "missing required argument 'query'"),
        (
            '<tool_call>{"name": "search", "arguments": {"query": 3}}</tool_call>',
            "must be of JSON type string",
        ),
        (
            '<tool_call>{"name": "search", "arguments": {"query": "a", "k": true}}</tool_call>',
            "JSON type integer",
        ),
        (
            '<tool_call>{"name": "search", "arguments": {"query": "a", "x": 1}}</tool_call>',
            "unknown argument 'x'",
        ),
        ('<tool_call>{"name": "search", "arguments": "q"}</tool_call>', "arguments must be a JSON object"),
        ('<tool_call>{"name": "search"}</tool_call>', "exactly the keys"),
        ("<tool_call>{not json}</tool_call>", "not valid JSON"),
        ('<tool_call>{"name": "clock", "arguments": {}}', "never closed"),
        ('</tool_call><tool_call>{"name": "clock", "arguments": {}}</tool_call>', "without an opening"),
        ("<tool_call><tool_call></tool_call>", "nested"),
    ],
)
def test_malformed_calls_are_errors(text: str, fragment: str) -> None:
    with pytest.raises(ToolCallError, match=fragment):
        parse_tool_calls(text, [SEARCH, CLOCK])
    reply = text_tool_reply(text, [SEARCH, CLOCK])
    assert reply.error is not None and fragment.split("'")[0] in reply.error and reply.calls == ()


def test_bad_tool_specs_and_inputs() -> None:
    with pytest.raises(ValueError, match="name must be a non-empty str"):
        ToolSpec("")
    with pytest.raises(ValueError, match="required"):
        ToolSpec("t", "", {"type": "object", "properties": {}, "required": ["a"]})
    with pytest.raises(ValueError, match="twice"):
        parse_tool_calls("", [CLOCK, CLOCK])
    with pytest.raises(TypeError, match="text must be a str"):
        parse_tool_calls(None, [CLOCK])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"tools\[0\] must be a ToolSpec"):
        parse_tool_calls("", ["clock"])  # type: ignore[list-item]


def test_openai_schema_and_calls() -> None:
    assert SEARCH.schema() == {
        "type": "function",
        "function": {
            "name": "search",
            "description": "search the web",
            "parameters": dict(SEARCH.parameters),
        },
    }
    raw = [
        {
            "id": "1",
            "type": "function",
            "function": {"name": "search", "arguments": json.dumps({"query": "x"})},
        }
    ]
    assert tool_calls_from_openai(raw, [SEARCH]) == [ToolCall("search", {"query": "x"})]
    bad = [{"function": {"name": "search", "arguments": "{oops"}}]
    with pytest.raises(ToolCallError, match="not valid JSON"):
        tool_calls_from_openai(bad, [SEARCH])
    assert "search" in text_tool_prompt([SEARCH]) and "<tool_call>" in text_tool_prompt([SEARCH])


@pytest.mark.parametrize(
    ("reply", "label"),
    [
        ("1", "1"),
        (" 0\n", "0"),
        ('"1"', "1"),
        ("0.", "0"),
        ("Yes", None),
        ("1 because", None),
        ("", None),
        ("10", None),
    ],
)
def test_verdicts_are_strict(reply: str, label: str | None) -> None:
    v = parse_verdict(reply)
    assert v.label == label and v.ok == (label is not None) and v.raw == reply


def test_tally_excludes_errors_from_the_denominator() -> None:
    judge = RuleJudge(lambda t: {"a": "0", "b": "1"}.get(t, "maybe"))
    counts = tally(judge.judge(["a", "b", "b", "zzz"]))
    assert counts.errors == 1 and counts.n == 4
    assert counts.rate("0") == pytest.approx(1 / 3)
    with pytest.raises(ValueError, match="at least two distinct"):
        parse_verdict("1", labels=("1",))
    with pytest.raises(TypeError, match="text must be a str"):
        parse_verdict(1)  # type: ignore[arg-type]


class Counter:
    """An episode that is done when the model says 'stop', fails on 'bad', continues otherwise."""

    def __init__(self, name: str) -> None:
        self.name, self.seen, self.stopped = name, [], ""

    def request(self) -> str:
        return f"{self.name}:{len(self.seen)}"

    def receive(self, reply: str) -> StepStatus:
        self.seen.append(reply)
        return {"stop": StepStatus.DONE, "bad": StepStatus.FAILED}.get(reply, StepStatus.CONTINUE)

    def stop(self, reason: str) -> None:
        self.stopped = reason


def test_lockstep_batches_counts_and_limits() -> None:
    script = {
        "a": ["go", "go", "stop"],
        "b": ["bad", "bad", "bad"],
        "c": ["go", "run"] * 5,
        "d": ["same"] * 10,
    }
    batches: list[list[str]] = []

    def respond(requests: list[str]) -> list[str]:
        batches.append(requests)
        return [script[r.split(":")[0]][int(r.split(":")[1])] for r in requests]

    eps = [Counter(n) for n in "abcd"]
    stats = run_lockstep(eps, respond, max_steps=5, max_failures=3, max_repeats=4)
    assert [e.ended for e in stats.episodes] == ["done", "max_failures", "max_steps", "repeats"]
    assert [e.calls for e in stats.episodes] == [3, 3, 5, 5]
    assert stats.episodes[1].failures == 3 and stats.failures == 3
    assert [len(b) for b in batches] == [4, 4, 4, 2, 2] and stats.batches == 5
    assert [e.stopped for e in eps] == ["", "max_failures", "max_steps", "repeats"]


def test_lockstep_bad_input() -> None:
    with pytest.raises(ValueError, match="replies for"):
        run_lockstep([Counter("a")], lambda rs: [])
    with pytest.raises(TypeError, match=r"episodes\[0\]"):
        run_lockstep([object()], lambda rs: rs)  # type: ignore[list-item]
    with pytest.raises(ValueError, match="max_steps"):
        run_lockstep([Counter("a")], lambda rs: rs, max_steps=0)


def test_batched_responder_sends_one_batch() -> None:
    seen = []

    def complete(prompts: list[str], *, max_tokens: int, temperature: float) -> list[str]:
        seen.append((list(prompts), max_tokens))
        return [p.upper() for p in prompts]

    respond = batched_responder(complete, lambda r: f"<{r}>", max_tokens=7)
    assert respond(["a", "b"]) == ["<A>", "<B>"] and seen == [(["<a>", "<b>"], 7)]
