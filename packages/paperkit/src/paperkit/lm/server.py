"""A small OpenAI-compatible HTTP server for a local model (stdlib ``http.server``, a thread a connection).

Endpoints (non-streaming): ``GET /v1/models``, ``GET /v1/models/{id}``, ``POST /v1/chat/completions``,
``POST /v1/completions``, and ``GET /health`` (no key needed).

Tools: a chat request may carry OpenAI's ``tools`` (function tools with JSON-schema parameters;
``tool_choice`` ``auto`` or ``none``), assistant messages with ``tool_calls`` and ``role: "tool"`` results.
The model is text-only, so they are rendered with paperkit.agents' JSON-in-text grammar
(:func:`paperkit.agents.wire.render_tool_conversation`: the tools' instruction as the first system message,
calls as ``<tool_call>`` blocks, results as ``<tool_result>`` blocks), and the reply's blocks are parsed
strictly and returned as ``message.tool_calls`` with ``finish_reason: "tool_calls"``. A malformed
``tools`` list or tool message is a 400 naming the field; a reply whose blocks do not parse comes back as
plain text. With an API key, every ``/v1`` request must
carry ``Authorization: Bearer <key>``, or it gets 401. Every error is JSON in OpenAI's shape,
``{"error": {"message", "type", "param", "code"}}``, with a 4xx status for a bad request (bad JSON, a number
JSON or Python cannot hold, JSON nested deeper than 64 levels, a lone UTF-16 surrogate, NaN/Infinity, a
missing or mistyped field, an unknown model, ``stream: true``, an unsupported option, a request over a work
cap) and 500 only if generation itself fails; the server never answers with HTML.

Limits (each refusal says which limit it hit):
- a request body of at most 4 MiB; at most 64 prompts, ``n`` up to 16, 16 stop strings of 256 characters;
- work per request: ``prompts x n x max_tokens`` at most 16384 completion tokens (code
  ``completion_tokens_cap``) and ``n x`` the prompts' tokens at most 65536 (``prompt_tokens_cap``); a chat
  request without ``max_tokens`` gets what is left of the context, cut to that cap;
- at most 32 open connections (``max_connections``): one more is answered 503 at once and closed, so idle
  or slow clients cannot grow the server's threads;
- 30 s (``request_timeout``) for a client to send a whole request, counted from the first byte waited
  for: a client trickling headers is cut off then (408 if its body was still arriving), and an idle
  keep-alive connection is closed after 30 s.

Sampling: ``temperature`` defaults to 1 as in OpenAI's API (send 0 for greedy); ``top_p`` in [0, 1] (nucleus)
and ``top_k`` >= 0 (vLLM's extension; 0 = off) restrict it; ``seed`` makes a sampled request reproducible;
without one, seeds come from the server's own seeded stream.
Generation is serialised by a lock: requests are answered one at a time. The HTTP core (bind checks, body
limits, deadlines, bounded connections, JSON errors) is :mod:`paperkit.serve`.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import torch
from transformers import PreTrainedTokenizerBase

from paperkit.agents.tools import ToolCallError, ToolSpec, parse_tool_calls
from paperkit.agents.wire import (
    ToolRequestError,
    openai_tool_calls,
    render_tool_conversation,
    tool_specs_from_openai,
)
from paperkit.lm.chat import ChatTemplate, HFChatModel
from paperkit.lm.generation import Completion, context_length, prompt_ids
from paperkit.serve import (
    App,
    JSONServer,
    Request,
    RunningServer,
    ServerSettings,
    check_bearer,
    check_bind,
    parse_json_object,
)
from paperkit.serve import HTTPError as _Error

MAX_BODY_BYTES = 4 * 2**20
MAX_N = 16
MAX_STOP = 16
MAX_STOP_CHARS = 256
MAX_PROMPTS = 64
MAX_JSON_DEPTH = 64
#: Work caps per request (tokens). At ~16k tokens/s for the tiny models, either cap holds the generation
#: lock for about a second; a request over them is refused, not queued.
MAX_COMPLETION_TOKENS = 16384
MAX_PROMPT_TOKENS = 65536
MAX_CONNECTIONS = 32
REQUEST_TIMEOUT_S = 30.0
DEFAULT_MAX_TOKENS = 256  # a chat request without max_tokens, on a model without a stated context length


# --- request validation --------------------------------------------------------------------------------


def _int(body: dict[str, Any], key: str, default: int | None, lo: int, hi: int | None = None) -> int | None:
    value = body.get(key)
    if value is None:
        return default
    if not isinstance(value, int) or isinstance(value, bool):
        raise _Error(
            400, f"'{key}' must be an integer, got {json.dumps(value)}", param=key, code="invalid_type"
        )
    if value < lo or (hi is not None and value > hi):
        bound = f">= {lo}" if hi is None else f"between {lo} and {hi}"
        raise _Error(400, f"'{key}' must be {bound}, got {value}", param=key, code="invalid_value")
    return value


def _number(body: dict[str, Any], key: str, default: float, lo: float, hi: float) -> float:
    value = body.get(key)
    if value is None:
        return default
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise _Error(
            400, f"'{key}' must be a number, got {json.dumps(value)}", param=key, code="invalid_type"
        )
    if not lo <= value <= hi:
        raise _Error(
            400, f"'{key}' must be between {lo} and {hi}, got {value}", param=key, code="invalid_value"
        )
    return float(value)


def _stop(body: dict[str, Any]) -> list[str]:
    value = body.get("stop")
    if value is None:
        return []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(s, str) and s for s in value):
        raise _Error(
            400, "'stop' must be a non-empty string or a list of them", param="stop", code="invalid_type"
        )
    if len(value) > MAX_STOP:
        raise _Error(400, f"'stop' may hold at most {MAX_STOP} strings", param="stop", code="invalid_value")
    if max(map(len, value)) > MAX_STOP_CHARS:
        raise _Error(
            400,
            f"each 'stop' string may be at most {MAX_STOP_CHARS} characters",
            param="stop",
            code="invalid_value",
        )
    return value


def _unsupported(body: dict[str, Any]) -> None:
    if body.get("stream") not in (None, False):
        raise _Error(400, "streaming is not supported by this server; send stream: false", param="stream")
    checks: Sequence[tuple[str, Callable[[Any], bool], str]] = (
        (
            "logprobs",
            lambda v: v not in (None, False, 0),
            "log-probabilities are not returned by this server",
        ),
        ("presence_penalty", lambda v: v not in (None, 0, 0.0), "presence_penalty is not supported"),
        ("frequency_penalty", lambda v: v not in (None, 0, 0.0), "frequency_penalty is not supported"),
        ("logit_bias", lambda v: bool(v), "logit_bias is not supported"),
        ("functions", lambda v: bool(v), "functions are not supported"),
        ("best_of", lambda v: v not in (None, 1), "best_of is not supported"),
        ("suffix", lambda v: v is not None, "suffix is not supported"),
        (
            "response_format",
            lambda v: v is not None and not (isinstance(v, dict) and v.get("type") == "text"),
            "only response_format {'type': 'text'} is supported",
        ),
    )
    for key, bad, message in checks:
        if key in body and bad(body[key]):
            raise _Error(400, message, param=key, code="unsupported_parameter")


def _tools(body: dict[str, Any]) -> list[ToolSpec]:
    """The request's ``tools`` (validated) unless ``tool_choice`` is ``"none"``; ``[]`` without tools."""
    choice = body.get("tool_choice")
    if choice not in (None, "auto", "none"):
        raise _Error(
            400,
            "only tool_choice 'auto' or 'none' is supported (this server cannot force a call)",
            param="tool_choice",
            code="unsupported_parameter",
        )
    if body.get("parallel_tool_calls") not in (None, True, False):
        raise _Error(400, "'parallel_tool_calls' must be a boolean", param="parallel_tool_calls")
    raw = body.get("tools")
    if raw is None or raw == []:
        return []
    try:
        specs = tool_specs_from_openai(raw)
    except ToolRequestError as err:
        raise _Error(400, str(err), param=err.param, code="invalid_value") from err
    return [] if choice == "none" else specs


def _messages(body: dict[str, Any]) -> list[dict[str, str]]:
    raw = body.get("messages")
    if raw is None:
        raise _Error(
            400, "missing required parameter 'messages'", param="messages", code="missing_required_parameter"
        )
    if not isinstance(raw, list) or not raw:
        raise _Error(400, "'messages' must be a non-empty list", param="messages", code="invalid_type")
    out = []
    for i, m in enumerate(raw):
        param = f"messages[{i}]"
        if not isinstance(m, dict):
            raise _Error(400, f"'{param}' must be an object", param=param, code="invalid_type")
        role = "system" if m.get("role") == "developer" else m.get("role")
        if role not in ("system", "user", "assistant"):
            raise _Error(
                400,
                f"'{param}.role' must be one of system, developer, user, assistant; "
                f"got {json.dumps(m.get('role'))}",
                param=f"{param}.role",
                code="invalid_value",
            )
        content = m.get("content")
        if isinstance(content, list):  # content parts: text only
            if not all(
                isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str)
                for p in content
            ):
                raise _Error(400, f"'{param}.content' parts must be text parts", param=f"{param}.content")
            content = "".join(p["text"] for p in content)
        if not isinstance(content, str):
            raise _Error(
                400, f"'{param}.content' must be a string", param=f"{param}.content", code="invalid_type"
            )
        out.append({"role": role, "content": content})
    return out


def _nonempty_list(body: dict[str, Any]) -> list[Any]:
    raw = body.get("messages")
    if not isinstance(raw, list) or not raw:
        raise _Error(400, "'messages' must be a non-empty list", param="messages", code="invalid_type")
    return raw


def _choice(index: int, c: Completion, tools: Sequence[ToolSpec], single: bool = False) -> dict[str, Any]:
    """One chat choice; with tools, the reply's ``<tool_call>`` blocks are parsed strictly and returned as
    ``tool_calls`` (finish_reason ``tool_calls``). A reply whose blocks do not parse is returned as
    text, untouched, so the client's strict parser counts it as a failed call rather than no call.
    ``single`` (``parallel_tool_calls: false``) keeps the first call only."""
    message: dict[str, Any] = {"role": "assistant", "content": c.text, "refusal": None}
    finish = c.finish_reason
    if tools:
        try:
            rest, calls = parse_tool_calls(c.text, tools)
        except ToolCallError:
            calls = []
        if calls:
            message.update(content=rest or None, tool_calls=openai_tool_calls(calls[:1] if single else calls))
            finish = "tool_calls"
    return {"index": index, "message": message, "logprobs": None, "finish_reason": finish}


def _prompts(body: dict[str, Any]) -> list[str]:
    raw = body.get("prompt")
    if raw is None:
        raise _Error(
            400, "missing required parameter 'prompt'", param="prompt", code="missing_required_parameter"
        )
    prompts = [raw] if isinstance(raw, str) else raw
    if not isinstance(prompts, list) or not prompts or not all(isinstance(p, str) for p in prompts):
        raise _Error(
            400,
            "'prompt' must be a string or a non-empty list of strings",
            param="prompt",
            code="invalid_type",
        )
    if len(prompts) > MAX_PROMPTS:
        raise _Error(
            400,
            f"'prompt' holds {len(prompts)} prompts; at most {MAX_PROMPTS} per request (cap: prompts)",
            param="prompt",
            code="prompts_cap",
        )
    return prompts


def parse_body(data: bytes) -> dict[str, Any]:
    """The request body as a JSON object, or _Error(400) saying what is wrong with it."""
    return parse_json_object(data, max_depth=MAX_JSON_DEPTH)


@dataclass(frozen=True)
class _Sampling:
    max_tokens: int | None
    temperature: float
    top_k: int | None
    top_p: float
    n: int
    stop: list[str]
    seed: int | None


def _sampling(body: dict[str, Any], default_max_tokens: int | None) -> _Sampling:
    _unsupported(body)
    max_tokens = _int(body, "max_tokens", default_max_tokens, 1)
    if body.get("max_completion_tokens") is not None:
        max_tokens = _int(body, "max_completion_tokens", None, 1)
    return _Sampling(
        max_tokens=max_tokens,
        temperature=_number(body, "temperature", 1.0, 0.0, 2.0),
        top_k=_int(body, "top_k", None, 0),
        top_p=_number(body, "top_p", 1.0, 0.0, 1.0),
        n=_int(body, "n", 1, 1, MAX_N) or 1,
        stop=_stop(body),
        seed=_int(body, "seed", None, 0, 2**63 - 1),
    )


# --- the server ----------------------------------------------------------------------------------------


class _Backend:
    """What the handlers share: the model, its lock, and the server's settings."""

    def __init__(
        self,
        chat: HFChatModel,
        *,
        model_name: str,
        api_key: str | None,
        log: Callable[[str], None] | None,
    ) -> None:
        self.chat, self.model_name, self.api_key, self.log = chat, model_name, api_key, log
        self.lock = threading.Lock()
        self.created = int(time.time())
        self.limit = context_length(chat.model)

    def model_card(self) -> dict[str, Any]:
        return {"id": self.model_name, "object": "model", "created": self.created, "owned_by": "paperkit"}

    def check_model(self, body: dict[str, Any]) -> None:
        name = body.get("model")
        if name is None:
            raise _Error(
                400, "missing required parameter 'model'", param="model", code="missing_required_parameter"
            )
        if not isinstance(name, str):
            raise _Error(400, "'model' must be a string", param="model", code="invalid_type")
        if name != self.model_name:
            raise _Error(
                404,
                f"The model '{name}' does not exist; this server serves '{self.model_name}'",
                param="model",
                code="model_not_found",
            )

    def run(self, prompts: list[str], s: _Sampling, prompt_param: str) -> list[Completion]:
        lengths = [len(ids) for ids in prompt_ids(self.chat.tokenizer, prompts)]
        if s.n * sum(lengths) > MAX_PROMPT_TOKENS:
            raise _Error(
                400,
                f"this request's prompts take {sum(lengths)} tokens x n={s.n} = {s.n * sum(lengths)}; "
                f"at most {MAX_PROMPT_TOKENS} per request (cap: prompt tokens)",
                param=prompt_param,
                code="prompt_tokens_cap",
            )
        max_tokens = s.max_tokens
        if self.limit is not None:
            room = self.limit - max(lengths)
            if room < 1 or (max_tokens is not None and max_tokens > room):
                raise _Error(
                    400,
                    f"this model's context is {self.limit} tokens; the prompt takes {max(lengths)}, leaving "
                    f"{max(room, 0)} for the completion, but {max_tokens or 'at least 1'} were asked for",
                    param="max_tokens" if room >= 1 else prompt_param,
                    code="context_length_exceeded",
                )
        per_token = len(prompts) * s.n
        if max_tokens is None:  # the default: what the context leaves, within the work cap
            room = DEFAULT_MAX_TOKENS if self.limit is None else self.limit - max(lengths)
            max_tokens = max(1, min(room, MAX_COMPLETION_TOKENS // per_token))
        if per_token * max_tokens > MAX_COMPLETION_TOKENS:
            raise _Error(
                400,
                f"this request asks for {len(prompts)} prompt(s) x n={s.n} x max_tokens={max_tokens} = "
                f"{per_token * max_tokens} completion tokens; at most {MAX_COMPLETION_TOKENS} per request "
                "(cap: completion tokens)",
                param="max_tokens",
                code="completion_tokens_cap",
            )
        with self.lock:
            return self.chat.complete_prompts(
                [p for p in prompts for _ in range(s.n)],
                max_tokens=max_tokens,
                temperature=s.temperature,
                stop=s.stop,
                seed=s.seed,
                top_k=s.top_k,
                top_p=s.top_p,
            )

    def usage(self, completions: list[Completion], n: int) -> dict[str, int]:
        prompt = sum(c.prompt_tokens for c in completions[::n])
        completion = sum(c.completion_tokens for c in completions)
        return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}

    def chat_completion(self, body: dict[str, Any]) -> dict[str, Any]:
        self.check_model(body)
        tools = _tools(body)
        raw = body.get("messages")
        tool_talk = bool(tools) or (
            isinstance(raw, list)
            and any(isinstance(m, dict) and (m.get("role") == "tool" or "tool_calls" in m) for m in raw)
        )
        if tool_talk:  # tools and tool messages rendered as text for the model (paperkit.agents.wire)
            try:
                messages = render_tool_conversation(_nonempty_list(body), tools)
            except ToolRequestError as err:
                raise _Error(400, str(err), param=err.param, code="invalid_value") from err
        else:
            messages = _messages(body)
        s = _sampling(body, None)
        done = self.run([self.chat.template(messages)], s, "messages")
        return {
            "id": f"chatcmpl-{uuid.uuid4().hex}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.model_name,
            "choices": [
                _choice(i, c, tools, single=body.get("parallel_tool_calls") is False)
                for i, c in enumerate(done)
            ],
            "usage": self.usage(done, s.n),
        }

    def completion(self, body: dict[str, Any]) -> dict[str, Any]:
        self.check_model(body)
        prompts = _prompts(body)
        echo = body.get("echo", False)
        if not isinstance(echo, bool):
            raise _Error(400, "'echo' must be a boolean", param="echo", code="invalid_type")
        s = _sampling(body, 16)  # OpenAI's default for the legacy completions endpoint
        done = self.run(prompts, s, "prompt")
        return {
            "id": f"cmpl-{uuid.uuid4().hex}",
            "object": "text_completion",
            "created": int(time.time()),
            "model": self.model_name,
            "choices": [
                {
                    "index": i,
                    "text": (prompts[i // s.n] if echo else "") + c.text,
                    "logprobs": None,
                    "finish_reason": c.finish_reason,
                }
                for i, c in enumerate(done)
            ],
            "usage": self.usage(done, s.n),
        }


def _app(backend: _Backend) -> App:
    """The OpenAI-shaped routes over ``backend``, for :class:`paperkit.serve.JSONServer`."""

    def app(request: Request) -> tuple[int, dict[str, Any]]:
        path, method, body = request.path, request.method, request.json
        if path == "/health" and method == "GET":
            return 200, {"status": "ok"}
        if not path.startswith("/v1/") and path != "/v1":
            raise _Error(404, f"unknown path {path or '/'}; the API lives under /v1", code="not_found")
        check_bearer(request.headers, backend.api_key)
        routes: dict[str, tuple[str, Callable[[], dict[str, Any]]]] = {
            "/v1/models": ("GET", lambda: {"object": "list", "data": [backend.model_card()]}),
            "/v1/chat/completions": ("POST", lambda: backend.chat_completion(body or {})),
            "/v1/completions": ("POST", lambda: backend.completion(body or {})),
        }
        if path.startswith("/v1/models/"):
            name = path[len("/v1/models/") :]
            if name != backend.model_name:
                raise _Error(404, f"The model '{name}' does not exist", param="model", code="model_not_found")
            routes[path] = ("GET", backend.model_card)
        if path not in routes:
            raise _Error(404, f"unknown path {path}", code="not_found")
        want, handler = routes[path]
        if method != want:
            raise _Error(405, f"{path} takes {want}, not {method}", code="method_not_allowed")
        return 200, handler()

    return app


class LMServer(RunningServer):
    """A running server (see :func:`serve`): ``.url`` (the API root, ending in ``/v1``), ``.host``,
    ``.port``, ``.model_name``, ``.open_connections``; ``.close()`` stops it; also a context manager."""

    def __init__(self, httpd: JSONServer, host: str, model_name: str) -> None:
        super().__init__(httpd, host)
        self.model_name = model_name
        self.url = f"{self.url}/v1"

    def __repr__(self) -> str:
        return f"LMServer(url={self.url!r}, model_name={self.model_name!r}, closed={self.closed})"


def serve(
    model: torch.nn.Module,
    tokenizer: PreTrainedTokenizerBase,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    api_key: str | None = None,
    model_name: str = "local",
    template: ChatTemplate | Callable[[list[dict[str, str]]], str] | None = None,
    seed: int = 0,
    allow_remote: bool = False,
    log: Callable[[str], None] | None = None,
    max_connections: int = MAX_CONNECTIONS,
    request_timeout: float = REQUEST_TIMEOUT_S,
) -> LMServer:
    """Serve ``model`` over an OpenAI-compatible HTTP API from a background thread; return at once.

    Args:
        host: the address to bind; a non-loopback one needs ``allow_remote=True``.
        port: 0 picks a free port (read it from ``.port``).
        api_key: if given, requests must send ``Authorization: Bearer <api_key>``.
        model_name: the id ``/v1/models`` lists and requests must name.
        template, seed: as for :class:`HFChatModel`; the chat endpoint renders messages with the template,
            so its greedy replies equal ``HFChatModel(model, tokenizer, template=template).complete(...)``.
        log: called with one line per request (and on errors); ``None`` logs nothing.
        max_connections: open connections served at once; one more is answered 503 and closed.
        request_timeout: seconds a client has to send a whole request (and an idle keep-alive connection
            stays open); a late one is answered 408 and closed.

    Example::

        with serve(model, tokenizer) as server:
            OpenAIChatModel(server.url, model="local").complete(messages, max_tokens=16)
    """
    check_bind(host, port, allow_remote=allow_remote)
    if api_key is not None and (not isinstance(api_key, str) or not api_key):
        raise ValueError("api_key must be None or a non-empty string")
    if not isinstance(model_name, str) or not model_name.strip():
        raise ValueError(f"model_name must be a non-empty string, got {model_name!r}")
    settings = ServerSettings(
        max_body_bytes=MAX_BODY_BYTES,
        max_json_depth=MAX_JSON_DEPTH,
        max_connections=max_connections,
        request_timeout=request_timeout,
        name="paperkit-lm",
    )
    chat = HFChatModel(model, tokenizer, template=template, seed=seed)
    backend = _Backend(chat, model_name=model_name, api_key=api_key, log=log)
    httpd = JSONServer((host, port), _app(backend), settings=settings, log=log)
    return LMServer(httpd, host, model_name)
