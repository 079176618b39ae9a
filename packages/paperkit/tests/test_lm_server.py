"""paperkit.lm server: the real openai client on a loopback port, parity with in-process generation."""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
openai = pytest.importorskip("openai")

from paperkit.lm import (  # noqa: E402
    ChatModel,
    ChatTemplate,
    HFChatModel,
    OpenAIChatModel,
    char_tokenizer,
    generate,
    serve,
    tiny_causal_lm,
)

KEY = "sk-test-key"
CONVERSATIONS = [
    [{"role": "user", "content": "hi"}],
    [{"role": "system", "content": "be brief"}, {"role": "user", "content": "what is this?"}],
    [
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": "b"},
        {"role": "user", "content": "c d e"},
    ],
]


pytestmark = pytest.mark.usefixtures("torch_one_thread")  # tiny models: one thread is fastest


@pytest.fixture(scope="module")
def lm(device: str) -> tuple[Any, Any]:
    tok = char_tokenizer("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ :?!.,\n")
    model = tiny_causal_lm(tok, arch="llama", d_model=32, max_positions=96, seed=0, device=device)
    with torch.no_grad():  # peaked logits: varied, non-trivial greedy output
        for p in model.parameters():
            if p.ndim >= 2:
                p.mul_(6.0)
    return model, tok


@pytest.fixture(scope="module")
def server(lm: tuple[Any, Any]) -> Iterator[Any]:
    model, tok = lm
    with serve(model, tok, api_key=KEY, model_name="tiny") as srv:
        yield srv


@pytest.fixture(scope="module")
def client(server: Any) -> Any:
    return openai.OpenAI(base_url=server.url, api_key=KEY, max_retries=0, timeout=30)


def raw(
    server: Any, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None
) -> tuple[int, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        conn.request(method, path, body=body, headers={"Authorization": f"Bearer {KEY}", **(headers or {})})
        response = conn.getresponse()
        assert response.getheader("Content-Type") == "application/json"
        return response.status, json.loads(response.read())
    finally:
        conn.close()


def assert_openai_error(payload: Any) -> None:
    assert set(payload) == {"error"}
    assert set(payload["error"]) == {"message", "type", "param", "code"}
    assert isinstance(payload["error"]["message"], str) and payload["error"]["message"]


def test_server_listens_on_a_free_loopback_port(server: Any) -> None:
    assert server.url == f"http://127.0.0.1:{server.port}/v1" and server.port > 0


def test_models_endpoint(client: Any) -> None:
    assert [m.id for m in client.models.list().data] == ["tiny"]
    assert client.models.retrieve("tiny").id == "tiny"
    with pytest.raises(openai.NotFoundError):
        client.models.retrieve("other")


@pytest.mark.parametrize("stop", [None, ["e"]])
def test_chat_through_the_openai_client_equals_the_in_process_backend(
    server: Any, lm: tuple[Any, Any], stop: list[str] | None
) -> None:
    model, tok = lm
    remote = OpenAIChatModel(server.url, api_key=KEY, model="tiny", max_retries=0)
    local = HFChatModel(model, tok)
    assert isinstance(remote, ChatModel) and isinstance(local, ChatModel)
    replies = []
    for messages in CONVERSATIONS:
        got = remote.complete(messages, max_tokens=12, temperature=0.0, stop=stop)
        assert got == local.complete(messages, max_tokens=12, temperature=0.0, stop=stop)
        assert (
            got
            == generate(model, tok, [ChatTemplate().render(messages)], max_new_tokens=12, stop=stop or ())[0]
        )
        replies.append(got)
    assert any(replies), "every reply is empty: the comparison would be vacuous"
    if stop:
        assert not any("e" in r for r in replies)


def test_chat_response_shape_and_usage(client: Any, lm: tuple[Any, Any]) -> None:
    _, tok = lm
    r = client.chat.completions.create(model="tiny", messages=CONVERSATIONS[0], max_tokens=5, temperature=0)
    assert r.object == "chat.completion" and r.model == "tiny" and len(r.choices) == 1
    choice = r.choices[0]
    assert choice.message.role == "assistant" and choice.finish_reason in ("stop", "length")
    prompt = ChatTemplate().render(CONVERSATIONS[0])
    assert r.usage.prompt_tokens == 1 + len(tok(prompt)["input_ids"])
    assert r.usage.total_tokens == r.usage.prompt_tokens + r.usage.completion_tokens
    assert r.usage.completion_tokens <= 5


def test_completions_equal_generate(client: Any, lm: tuple[Any, Any]) -> None:
    model, tok = lm
    prompts = ["Hello", "the cat", "Z"]
    r = client.completions.create(model="tiny", prompt=prompts, max_tokens=10, temperature=0)
    assert [c.text for c in sorted(r.choices, key=lambda c: c.index)] == generate(
        model, tok, prompts, max_new_tokens=10
    )
    echoed = client.completions.create(model="tiny", prompt="Hello", max_tokens=4, temperature=0, echo=True)
    assert echoed.choices[0].text == "Hello" + generate(model, tok, ["Hello"], max_new_tokens=4)[0]


def test_seeded_sampling_is_reproducible(client: Any) -> None:
    def ask(seed: int) -> list[str]:
        r = client.chat.completions.create(
            model="tiny", messages=CONVERSATIONS[1], max_tokens=8, temperature=1.0, seed=seed, n=3
        )
        return [c.message.content for c in sorted(r.choices, key=lambda c: c.index)]

    a = ask(7)
    assert len(a) == 3 and len(set(a)) > 1  # n samples, not n copies
    assert ask(7) == a
    assert ask(8) != a


def test_top_k_and_top_p_reach_the_sampler(client: Any, lm: tuple[Any, Any]) -> None:
    model, tok = lm
    prompts = ["Hello", "the cat"]
    greedy = generate(model, tok, prompts, max_new_tokens=6)
    for extra in ({"top_k": 1}, {"top_p": 0.0}):  # one candidate a step: sampling is greedy
        r = client.completions.create(
            model="tiny", prompt=prompts, max_tokens=6, temperature=1.0, seed=3, extra_body=extra
        )
        assert [c.text for c in sorted(r.choices, key=lambda c: c.index)] == greedy
    kw = {"max_new_tokens": 6, "temperature": 1.0, "seed": 3, "top_k": 5, "top_p": 0.9}
    r = client.completions.create(
        model="tiny",
        prompt=prompts,
        max_tokens=6,
        temperature=1.0,
        seed=3,
        top_p=0.9,
        extra_body={"top_k": 5},
    )
    assert [c.text for c in sorted(r.choices, key=lambda c: c.index)] == generate(model, tok, prompts, **kw)


def test_wrong_or_missing_api_key_is_401(server: Any) -> None:
    bad = openai.OpenAI(base_url=server.url, api_key="wrong", max_retries=0)
    with pytest.raises(openai.AuthenticationError) as err:
        bad.chat.completions.create(model="tiny", messages=CONVERSATIONS[0], max_tokens=2)
    assert err.value.status_code == 401
    for headers in ({"Authorization": ""}, {"Authorization": "Basic " + KEY}, {"Authorization": "Bearer x"}):
        status, payload = raw(server, "GET", "/v1/models", headers=headers)
        assert status == 401
        assert_openai_error(payload)
        assert payload["error"]["code"] == "invalid_api_key"


GOOD = {"model": "tiny", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 2}
MALFORMED = [
    ("bad json", b'{"model": "tiny",', 400, None),
    ("not an object", b"[1, 2]", 400, None),
    ("not utf-8", b"\xff\xfe", 400, None),
    ("missing model", {"messages": GOOD["messages"]}, 400, "model"),
    ("model not a string", {**GOOD, "model": 3}, 400, "model"),
    ("unknown model", {**GOOD, "model": "gpt-9"}, 404, "model"),
    ("missing messages", {"model": "tiny"}, 400, "messages"),
    ("messages not a list", {**GOOD, "messages": "hi"}, 400, "messages"),
    ("empty messages", {**GOOD, "messages": []}, 400, "messages"),
    ("message not an object", {**GOOD, "messages": ["hi"]}, 400, "messages[0]"),
    ("bad role", {**GOOD, "messages": [{"role": "robot", "content": "x"}]}, 400, "messages[0].role"),
    (
        "content not a string",
        {**GOOD, "messages": [{"role": "user", "content": 5}]},
        400,
        "messages[0].content",
    ),
    ("max_tokens a string", {**GOOD, "max_tokens": "5"}, 400, "max_tokens"),
    ("max_tokens zero", {**GOOD, "max_tokens": 0}, 400, "max_tokens"),
    ("max_tokens a bool", {**GOOD, "max_tokens": True}, 400, "max_tokens"),
    ("temperature a string", {**GOOD, "temperature": "hot"}, 400, "temperature"),
    ("temperature too high", {**GOOD, "temperature": 5}, 400, "temperature"),
    ("n too large", {**GOOD, "n": 100}, 400, "n"),
    ("stop a number", {**GOOD, "stop": 5}, 400, "stop"),
    ("empty stop string", {**GOOD, "stop": [""]}, 400, "stop"),
    ("seed negative", {**GOOD, "seed": -1}, 400, "seed"),
    ("stream", {**GOOD, "stream": True}, 400, "stream"),
    ("top_p above 1", {**GOOD, "top_p": 1.5}, 400, "top_p"),
    ("top_p a string", {**GOOD, "top_p": "0.5"}, 400, "top_p"),
    ("top_k negative", {**GOOD, "top_k": -1}, 400, "top_k"),
    ("top_k a float", {**GOOD, "top_k": 2.5}, 400, "top_k"),
    ("logprobs", {**GOOD, "logprobs": True}, 400, "logprobs"),
    ("longer than the context", {**GOOD, "max_tokens": 500}, 400, "max_tokens"),
]


@pytest.mark.parametrize(
    ("body", "status", "param"), [m[1:] for m in MALFORMED], ids=[m[0] for m in MALFORMED]
)
def test_malformed_chat_requests_get_a_4xx_json_error(
    server: Any, body: Any, status: int, param: str | None
) -> None:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    got, payload = raw(server, "POST", "/v1/chat/completions", data, {"Content-Type": "application/json"})
    assert got == status, payload
    assert_openai_error(payload)
    assert payload["error"]["param"] == param


@pytest.mark.parametrize(
    ("method", "path", "body", "status"),
    [
        ("POST", "/v1/completions", {"model": "tiny"}, 400),  # no prompt
        ("POST", "/v1/completions", {"model": "tiny", "prompt": [1, 2, 3]}, 400),  # token ids: unsupported
        ("POST", "/v1/completions", {"model": "tiny", "prompt": "a", "echo": "yes"}, 400),
        ("GET", "/v1/chat/completions", None, 405),
        ("POST", "/v1/models", {}, 405),
        ("GET", "/v1/embeddings", None, 404),
        ("GET", "/", None, 404),
        ("DELETE", "/v1/models", None, 405),
    ],
)
def test_other_bad_requests(server: Any, method: str, path: str, body: Any, status: int) -> None:
    data = None if body is None else json.dumps(body).encode()
    got, payload = raw(server, method, path, data)
    assert got == status
    assert_openai_error(payload)


def read_until_closed(s: socket.socket) -> str:
    chunks = []
    while chunk := s.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks).decode()


def test_bodies_without_a_length_or_cut_short_are_refused_not_waited_for(server: Any) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
        s.sendall(
            b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
            + KEY.encode()
            + b"\r\n\r\n"
        )
        reply = read_until_closed(s)
    assert reply.startswith("HTTP/1.1 411") and '"error"' in reply
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
        head = (
            "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
            f"Authorization: Bearer {KEY}\r\nContent-Length: 100\r\n\r\n"
        )
        s.sendall(head.encode() + b'{"model"')
        s.shutdown(socket.SHUT_WR)  # the client gives up early
        reply = read_until_closed(s)
    assert reply.startswith("HTTP/1.1 400") and "shorter than its Content-Length" in reply
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
        s.sendall(b"NONSENSE\r\n\r\n")
        reply = read_until_closed(s)
    assert reply.startswith("HTTP/1.1 400") and '"error"' in reply and "<html" not in reply.lower()


def test_server_survives_bad_requests_and_concurrent_clients(server: Any, client: Any) -> None:
    raw(server, "POST", "/v1/chat/completions", b"{")
    results: list[str] = []

    def ask() -> None:
        r = client.chat.completions.create(
            model="tiny", messages=CONVERSATIONS[0], max_tokens=6, temperature=0
        )
        results.append(r.choices[0].message.content)

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert len(results) == 4 and len(set(results)) == 1
    assert raw(server, "GET", "/health")[0] == 200


def test_serve_refuses_remote_hosts_and_bad_arguments(lm: tuple[Any, Any]) -> None:
    model, tok = lm
    with pytest.raises(ValueError, match="not a loopback address"):
        serve(model, tok, host="0.0.0.0")
    with pytest.raises(ValueError, match="port must be an int"):
        serve(model, tok, port=70000)
    with pytest.raises(ValueError, match="api_key must be None or a non-empty string"):
        serve(model, tok, api_key="")


def test_close_stops_serving_and_is_idempotent(lm: tuple[Any, Any]) -> None:
    model, tok = lm
    srv = serve(model, tok)  # no key: any request is accepted
    assert raw(srv, "GET", "/v1/models", headers={"Authorization": ""})[0] == 200
    keep_alive = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
    keep_alive.request("GET", "/v1/models")
    keep_alive.getresponse().read()  # an open keep-alive connection must not block close()
    srv.close()
    srv.close()
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", srv.port), timeout=2).close()
    keep_alive.close()


def test_chat_models_validate_messages(lm: tuple[Any, Any]) -> None:
    model, tok = lm
    chat = HFChatModel(model, tok)
    with pytest.raises(ValueError, match="messages is empty"):
        chat.complete([], max_tokens=2)
    with pytest.raises(ValueError, match=r"messages\[0\]\['role'\] must be one of"):
        chat.complete([{"role": "robot", "content": "x"}], max_tokens=2)
    with pytest.raises(TypeError, match=r"messages\[0\]\['content'\] must be a str"):
        chat.complete([{"role": "user", "content": 1}], max_tokens=2)  # type: ignore[dict-item]
    with pytest.raises(TypeError, match="template must be a ChatTemplate or a callable"):
        HFChatModel(model, tok, template="User:")  # type: ignore[arg-type]
    assert ChatTemplate().render(CONVERSATIONS[1]) == "System: be brief\nUser: what is this?\nAssistant: "


# --- hostile input, work caps, connection and time bounds --------------------------------------------------

CHAT = b'{"model": "tiny", "messages": [{"role": "user", "content": "hi"}]'
HOSTILE = [
    ("a 5000-digit integer", CHAT + b', "max_tokens": ' + b"9" * 5000 + b"}", "cannot be read"),
    ("JSON nested 100k deep", CHAT + b', "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "deeper than 64"),
    ("JSON nested 65 deep", CHAT + b', "x": ' + b"[" * 65 + b"]" * 65 + b"}", "deeper than 64"),
    ("a lone surrogate", CHAT + b', "x": "\\ud800"}', "lone UTF-16 surrogate"),
    ("a lone surrogate key", CHAT + b', "\\udfff": 1}', "lone UTF-16 surrogate"),
    (
        "a lone surrogate in content",
        b'{"model": "tiny", "messages": [{"role": "user", "content": "a\\ud83d"}]}',
        "lone UTF-16 surrogate",
    ),
    ("NaN", CHAT + b', "temperature": NaN}', "NaN is not a JSON number"),
    ("-Infinity", CHAT + b', "temperature": -Infinity}', "-Infinity is not a JSON number"),
    ("1e999", CHAT + b', "temperature": 1e999}', "'temperature' must be between"),
    ("seed 2**64", CHAT + b', "seed": 18446744073709551616}', "'seed' must be between"),
    ("a 300-character stop", CHAT + b', "stop": "' + b"x" * 300 + b'"}', "at most 256 characters"),
    ("a float max_tokens", CHAT + b', "max_tokens": 2.5}', "must be an integer"),
    ("a UTF-16 BOM before UTF-8 text", "\ufeff".encode("utf-16-le") + CHAT + b"}", "not valid JSON"),
]


@pytest.mark.parametrize(("body", "fragment"), [h[1:] for h in HOSTILE], ids=[h[0] for h in HOSTILE])
def test_hostile_bodies_get_400_not_500(server: Any, body: bytes, fragment: str) -> None:
    got, payload = raw(server, "POST", "/v1/chat/completions", body, {"Content-Type": "application/json"})
    assert got == 400, payload
    assert_openai_error(payload)
    assert fragment in payload["error"]["message"]
    assert raw(server, "GET", "/health")[0] == 200  # and it keeps answering


@pytest.mark.parametrize(
    ("body", "param", "code", "fragment"),
    [
        ({"prompt": ["a"] * 65, "max_tokens": 1}, "prompt", "prompts_cap", "(cap: prompts)"),
        (
            {"prompt": ["a"] * 64, "n": 16, "max_tokens": 20},
            "max_tokens",
            "completion_tokens_cap",
            "64 prompt(s) x n=16 x max_tokens=20 = 20480 completion tokens; at most 16384",
        ),
        ({"prompt": ["ab" * 40] * 64, "n": 16}, "prompt", "prompt_tokens_cap", "(cap: prompt tokens)"),
    ],
)
def test_work_per_request_is_capped_and_the_refusal_names_the_cap(
    server: Any, body: dict[str, Any], param: str, code: str, fragment: str
) -> None:
    got, payload = raw(server, "POST", "/v1/completions", json.dumps({"model": "tiny", **body}).encode())
    assert got == 400, payload
    assert payload["error"]["param"] == param and payload["error"]["code"] == code
    assert fragment in payload["error"]["message"]


def test_a_5000_digit_content_length_is_400(server: Any) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
        s.sendall(b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: " + b"9" * 5000 + b"\r\n\r\n")
        assert read_until_closed(s).startswith("HTTP/1.1 400")


@pytest.fixture
def strict(lm: tuple[Any, Any]) -> Iterator[Any]:
    model, tok = lm
    with serve(model, tok, model_name="tiny", max_connections=4, request_timeout=1.0) as srv:
        yield srv


@pytest.fixture
def bounded(lm: tuple[Any, Any]) -> Iterator[Any]:
    # A longer request timeout than ``strict``: the four idle clients must stay open while the twelve extra
    # ones are refused, even on a loaded machine (at 1 s the server could free a slot mid-test; seen in CI).
    model, tok = lm
    with serve(model, tok, model_name="tiny", max_connections=4, request_timeout=4.0) as srv:
        yield srv


def test_open_connections_are_bounded_and_idle_ones_time_out(bounded: Any) -> None:
    strict = bounded
    before = threading.active_count()
    idle = [socket.create_connection(("127.0.0.1", strict.port), timeout=10) for _ in range(4)]
    try:
        deadline = time.monotonic() + 10
        while strict.open_connections < 4 and time.monotonic() < deadline:
            time.sleep(0.01)  # until the server has accepted all four
        extra = [socket.create_connection(("127.0.0.1", strict.port), timeout=10) for _ in range(12)]
        replies = [read_until_closed(s) for s in extra]
        for s in extra:
            s.close()
        assert all(r.startswith("HTTP/1.1 503") and "too_many_connections" in r for r in replies), replies
        assert strict.open_connections == 4
        assert threading.active_count() <= before + 4  # one thread per served connection, none per refusal
        t0 = time.monotonic()
        assert [s.recv(1) for s in idle] == [b""] * 4  # closed by the server at its 4 s request timeout
        assert time.monotonic() - t0 < 9  # 4 s and the poll tick, with room for a loaded machine
    finally:
        for s in idle:
            s.close()
    assert raw(strict, "GET", "/health")[0] == 200


@pytest.mark.parametrize("part", ["headers", "body"])
def test_a_client_trickling_its_request_is_cut_off_at_the_request_timeout(strict: Any, part: str) -> None:
    head = b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 200\r\n"
    with socket.create_connection(("127.0.0.1", strict.port), timeout=10) as s:
        t0 = time.monotonic()
        if part == "body":
            s.sendall(head + b"\r\n")
        reply = b""
        for _ in range(100):  # a byte every 0.1 s: each recv alone would never time out
            try:
                s.sendall(b"X")
            except OSError:
                break
            time.sleep(0.1)
            s.setblocking(False)
            with contextlib.suppress(BlockingIOError):
                reply += s.recv(65536)
            s.setblocking(True)
            if reply:
                break
        elapsed = time.monotonic() - t0
    assert reply.startswith(b"HTTP/1.1 408") and b"request_timeout" in reply, reply[:200]
    assert elapsed < 6  # cut off at the 1 s deadline (plus a loaded machine's delays), not at 10 s
    assert raw(strict, "GET", "/health")[0] == 200


@pytest.mark.slow
def test_load_on_loopback_records_latency_percentiles(
    server: Any, record_property: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """400 requests (health, models, chat of 8 tokens) from 8 client threads on 127.0.0.1, while 8 idle
    connections sit open; stops after 400 requests or 120 s, whichever is first."""
    import concurrent.futures as cf

    total, threads, budget_s = 400, 8, 120.0
    chat = json.dumps({**GOOD, "max_tokens": 8, "temperature": 0}).encode()
    kinds = [("GET", "/health", None), ("GET", "/v1/models", None), ("POST", "/v1/chat/completions", chat)]
    stop_at = time.monotonic() + budget_s

    def one(i: int) -> tuple[str, int, float]:
        if time.monotonic() > stop_at:
            return "skipped", 0, 0.0
        method, path, body = kinds[i % len(kinds)]
        t0 = time.perf_counter()
        status, _ = raw(server, method, path, body)
        return path, status, time.perf_counter() - t0

    idle = [socket.create_connection(("127.0.0.1", server.port), timeout=10) for _ in range(8)]
    try:
        with cf.ThreadPoolExecutor(threads) as pool:
            done = [r for r in pool.map(one, range(total)) if r[0] != "skipped"]
    finally:
        for s in idle:
            s.close()
    assert len(done) >= total // 2, f"only {len(done)} requests within {budget_s} s"
    assert all(status == 200 for _, status, _ in done), sorted({s for _, s, _ in done})
    lat = np.array([t for _, _, t in done]) * 1000
    chat_lat = np.array([t for p, _, t in done if p.endswith("completions")]) * 1000
    stats = {
        "requests": len(done),
        "p50_ms": float(np.percentile(lat, 50)),
        "p99_ms": float(np.percentile(lat, 99)),
        "chat_p50_ms": float(np.percentile(chat_lat, 50)),
        "chat_p99_ms": float(np.percentile(chat_lat, 99)),
    }
    for key, value in stats.items():
        record_property(key, value)
    with capsys.disabled():
        print("\nload test:", ", ".join(f"{k} {v:.1f}" for k, v in stats.items()))
    assert stats["p99_ms"] < 10_000
