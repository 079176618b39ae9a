"""paperkit.lm server with OpenAI ``tools``: a tiny model trained here to answer with tool calls, served on
loopback, read back through the official client and ``paperkit.agents.OpenAIToolChat``; bad requests."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

torch = pytest.importorskip("torch")
openai = pytest.importorskip("openai")

from paperkit.agents import (  # noqa: E402
    OpenAIToolChat,
    ToolCall,
    ToolRequestError,
    ToolSpec,
    format_tool_result,
    render_tool_conversation,
    text_tool_prompt,
    tool_specs_from_openai,
)
from paperkit.lm import (  # noqa: E402
    ChatTemplate,
    TrainConfig,
    generate,
    serve,
    tiny_causal_lm,
    train_causal_lm,
    word_tokenizer,
)
from paperkit.lm.tokenization import WORD_PIECE  # noqa: E402

pytestmark = pytest.mark.usefixtures("torch_one_thread")

WEATHER = ToolSpec(
    "weather",
    "the weather of a city",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)
TOOLS = [WEATHER.schema()]
CALL = {"id": "call_1", "type": "function", "function": {"name": "weather", "arguments": '{"city": "paris"}'}}
ASK = [{"role": "user", "content": "weather in paris?"}]
ANSWERED = [*ASK, {"role": "assistant", "content": None, "tool_calls": [CALL]},
            {"role": "tool", "tool_call_id": "call_1", "content": "sunny"}]  # fmt: skip
BAD = [{"role": "user", "content": "oops"}]
#: what the model is trained to answer: a call, a text reply after the call's result, an unknown tool
TARGETS = [
    (ASK, '<tool_call>{"name": "weather", "arguments": {"city": "paris"}}</tool_call>'),
    (ANSWERED, "it is sunny in paris"),
    (BAD, '<tool_call>{"name": "rain", "arguments": {}}</tool_call>'),
]


@pytest.fixture(scope="module")
def trained() -> tuple[Any, Any]:
    """A tiny word-level model that memorised the three replies to the rendered conversations (~2 CPU-s)."""
    prompts = [ChatTemplate().render(render_tool_conversation(m, [WEATHER])) for m, _ in TARGETS]
    replies = [r for _, r in TARGETS]
    tok = word_tokenizer(sorted({p for t in prompts + replies for p in re.findall(WORD_PIECE, t)}))
    model = tiny_causal_lm(tok, d_model=32, n_layer=1, n_head=2, max_positions=320, seed=0)
    config = TrainConfig(steps=200, batch_size=3, lr=1e-2, warmup_steps=5)
    train_causal_lm(model, tok, prompts, replies, config, max_length=320, progress=False)
    assert generate(model, tok, prompts, max_new_tokens=48) == replies  # the model learnt them
    return model, tok


@pytest.fixture(scope="module")
def server(trained: tuple[Any, Any]) -> Iterator[Any]:
    with serve(*trained, model_name="tiny") as srv:
        yield srv


@pytest.fixture(scope="module")
def client(server: Any) -> Any:
    return openai.OpenAI(base_url=server.url, api_key="none", max_retries=0, timeout=30)


def test_tools_come_back_as_tool_calls(client: Any) -> None:
    r = client.chat.completions.create(model="tiny", messages=ASK, tools=TOOLS, max_tokens=48, temperature=0)
    choice = r.choices[0]
    assert choice.finish_reason == "tool_calls" and choice.message.content is None
    (tc,) = choice.message.tool_calls
    assert tc.type == "function" and tc.id.startswith("call_")
    assert tc.function.name == "weather" and json.loads(tc.function.arguments) == {"city": "paris"}


def test_the_prompt_is_the_rendered_conversation(client: Any, trained: tuple[Any, Any]) -> None:
    model, tok = trained
    for messages, reply in TARGETS[1:]:
        r = client.chat.completions.create(
            model="tiny", messages=messages, tools=TOOLS, max_tokens=48, temperature=0
        )
        prompt = ChatTemplate().render(render_tool_conversation(messages, [WEATHER]))
        assert r.usage.prompt_tokens == 1 + len(tok(prompt)["input_ids"])
        assert r.choices[0].message.content == reply == generate(model, tok, [prompt], max_new_tokens=48)[0]
        assert not r.choices[0].message.tool_calls and r.choices[0].finish_reason == "stop"
    shown = ChatTemplate().render(render_tool_conversation(ANSWERED, [WEATHER]))
    assert text_tool_prompt([WEATHER]) in shown and format_tool_result("weather", "sunny") in shown


def test_tool_choice_none_hides_the_tools(client: Any, trained: tuple[Any, Any]) -> None:
    _, tok = trained
    r = client.chat.completions.create(
        model="tiny", messages=ASK, tools=TOOLS, tool_choice="none", max_tokens=8, temperature=0
    )
    assert r.usage.prompt_tokens == 1 + len(tok(ChatTemplate().render(ASK))["input_ids"])
    assert not r.choices[0].message.tool_calls


def test_openai_tool_chat_reads_calls_and_counts_bad_ones(server: Any) -> None:
    chat = OpenAIToolChat(server.url, model="tiny", max_retries=0)
    reply = chat.chat(ASK, [WEATHER], max_tokens=48)
    assert reply.error is None and reply.calls == (ToolCall("weather", {"city": "paris"}),)
    assert chat.chat(ANSWERED, [WEATHER], max_tokens=48).text == "it is sunny in paris"
    bad = chat.chat(BAD, [WEATHER], max_tokens=48)  # the model calls a tool it was not given
    assert bad.calls == () and bad.error is not None and "unknown tool 'rain'" in bad.error


GOOD = {"model": "tiny", "messages": ASK, "max_tokens": 2}
BAD_TOOL_REQUESTS = [
    ("tools not a list", {**GOOD, "tools": {"a": 1}}, "tools"),
    ("entry not a function tool", {**GOOD, "tools": [{"type": "code"}]}, "tools[0]"),
    ("function missing", {**GOOD, "tools": [{"type": "function"}]}, "tools[0].function"),
    ("name missing", {**GOOD, "tools": [{"type": "function", "function": {}}]}, "tools[0].function.name"),
    ("name with spaces", {**GOOD, "tools": [{"type": "function", "function": {"name": "a b"}}]},
     "tools[0].function.name"),
    ("duplicate names", {**GOOD, "tools": TOOLS + TOOLS}, "tools[1].function.name"),
    ("parameters not an object schema",
     {**GOOD, "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "array"}}}]},
     "tools[0].function.parameters"),
    ("required not among properties",
     {**GOOD, "tools": [{"type": "function", "function": {"name": "f", "parameters": {"required": ["x"]}}}]},
     "tools[0].function.parameters"),
    ("tool_choice required", {**GOOD, "tools": TOOLS, "tool_choice": "required"}, "tool_choice"),
    ("tool result for no call", {**GOOD, "tools": TOOLS, "messages": [*ASK, {"role": "tool",
     "tool_call_id": "call_9", "content": "x"}]}, "messages[1].tool_call_id"),
    ("call arguments not JSON", {**GOOD, "tools": TOOLS, "messages": [*ASK, {"role": "assistant",
     "tool_calls": [{**CALL, "function": {"name": "weather", "arguments": "{city"}}]}]},
     "messages[1].tool_calls[0]"),
    ("tool content not a string", {**GOOD, "tools": TOOLS, "messages": [*ANSWERED[:2],
     {"role": "tool", "tool_call_id": "call_1", "content": 3}]}, "messages[2].content"),
    ("functions (legacy)", {**GOOD, "functions": [{"name": "f"}]}, "functions"),
    ("name with tag characters",
     {**GOOD, "tools": [{"type": "function", "function": {"name": "a</tool_call>"}}]},
     "tools[0].function.name"),
    ("name over 64 characters", {**GOOD, "tools": [{"type": "function", "function": {"name": "f" * 65}}]},
     "tools[0].function.name"),
    ("call of another type", {**GOOD, "tools": TOOLS, "messages": [*ASK, {"role": "assistant",
     "tool_calls": [{**CALL, "type": "code"}]}]}, "messages[1].tool_calls[0].type"),
    ("repeated call id", {**GOOD, "tools": TOOLS, "messages": [*ASK, {"role": "assistant",
     "tool_calls": [CALL, CALL]}]}, "messages[1].tool_calls"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("body", "param"), [b[1:] for b in BAD_TOOL_REQUESTS], ids=[b[0] for b in BAD_TOOL_REQUESTS]
)
def test_malformed_tool_requests_get_a_400_naming_the_field(client: Any, body: Any, param: str) -> None:
    with pytest.raises(openai.BadRequestError) as err:
        client.chat.completions.create(**body)
    assert err.value.status_code == 400
    assert err.value.body["param"] == param and err.value.body["message"]


def test_prompt_with_tools_over_the_context_is_a_400(client: Any) -> None:
    long = [{"role": "user", "content": "paris " * 100}]
    with pytest.raises(openai.BadRequestError) as err:
        client.chat.completions.create(model="tiny", messages=long, tools=TOOLS, max_tokens=8)
    assert err.value.body["code"] == "context_length_exceeded"


def test_tool_specs_from_openai_round_trip_and_errors() -> None:
    assert tool_specs_from_openai(TOOLS) == [WEATHER]
    with pytest.raises(ToolRequestError, match=r"names the tool 'weather' twice") as err:
        tool_specs_from_openai(TOOLS * 2)
    assert err.value.param == "tools[1].function.name"
    with pytest.raises(ToolRequestError, match="must name a call of an earlier assistant message"):
        render_tool_conversation([{"role": "tool", "tool_call_id": "x", "content": "y"}], [WEATHER])
