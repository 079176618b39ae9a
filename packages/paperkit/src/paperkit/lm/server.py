"""A small OpenAI-compatible HTTP server for a local model (stdlib ``http.server``, a thread a connection).

Endpoints (non-streaming): ``GET /v1/models``, ``GET /v1/models/{id}``, ``POST /v1/chat/completions``,
``POST /v1/completions``, and ``GET /health`` (no key needed). With an API key, every ``/v1`` request must
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

Sampling: ``temperature`` defaults to 1 as in OpenAI's API (send 0 for greedy); ``seed`` makes a sampled
request reproducible; without one, seeds come from the server's own seeded stream.
Generation is serialised by a lock: requests are answered one at a time.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import math
import socket
import socketserver
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import torch
from transformers import PreTrainedTokenizerBase

from paperkit.lm._net import is_loopback
from paperkit.lm.chat import ChatTemplate, HFChatModel
from paperkit.lm.generation import Completion, context_length, prompt_ids

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


class _Error(Exception):
    def __init__(
        self, status: int, message: str, *, param: str | None = None, code: str | None = None, kind: str = ""
    ) -> None:
        super().__init__(message)
        self.status, self.message, self.param, self.code = status, message, param, code
        self.kind = kind or ("invalid_request_error" if status < 500 else "server_error")


def _error_body(err: _Error) -> dict[str, Any]:
    return {"error": {"message": err.message, "type": err.kind, "param": err.param, "code": err.code}}


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
        ("top_p", lambda v: v not in (None, 1, 1.0), "only top_p = 1 is supported (no nucleus sampling)"),
        ("presence_penalty", lambda v: v not in (None, 0, 0.0), "presence_penalty is not supported"),
        ("frequency_penalty", lambda v: v not in (None, 0, 0.0), "frequency_penalty is not supported"),
        ("logit_bias", lambda v: bool(v), "logit_bias is not supported"),
        ("tools", lambda v: bool(v), "tools are not supported"),
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


def _reject_constant(name: str) -> Any:
    raise _Error(400, f"the request body is not valid JSON: {name} is not a JSON number")


def _depth_ok(data: bytes, limit: int) -> bool:
    """True when no JSON array/object in ``data`` nests deeper than ``limit`` (brackets inside strings may
    over-count, which only refuses a pathological body earlier). Checked before parsing: the parser's own
    recursion limit would otherwise be the bound, with a RecursionError."""
    depth = 0
    for byte in data.translate(None, _NOT_BRACKETS):
        depth += 1 if byte in b"[{" else -1
        if depth > limit:
            return False
    return True


_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def parse_body(data: bytes) -> dict[str, Any]:
    """The request body as a JSON object, or _Error(400) saying what is wrong with it."""
    if not _depth_ok(data, MAX_JSON_DEPTH):
        raise _Error(400, f"the request body nests JSON deeper than {MAX_JSON_DEPTH} levels")
    try:
        body = json.loads(data, parse_constant=_reject_constant)
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise _Error(400, f"the request body is not valid JSON: {err}") from None
    except RecursionError:
        raise _Error(400, f"the request body nests JSON deeper than {MAX_JSON_DEPTH} levels") from None
    except ValueError as err:  # an integer of more than 4300 digits (Python's int_max_str_digits)
        raise _Error(400, f"the request body holds a number that cannot be read: {str(err)[:120]}") from None
    if not isinstance(body, dict):
        raise _Error(400, "the request body must be a JSON object")
    try:
        json.dumps(body, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise _Error(
            400, "the request body holds a lone UTF-16 surrogate (\\ud800-\\udfff), not text"
        ) from None
    return body


@dataclass(frozen=True)
class _Sampling:
    max_tokens: int | None
    temperature: float
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
            )

    def usage(self, completions: list[Completion], n: int) -> dict[str, int]:
        prompt = sum(c.prompt_tokens for c in completions[::n])
        completion = sum(c.completion_tokens for c in completions)
        return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}

    def chat_completion(self, body: dict[str, Any]) -> dict[str, Any]:
        self.check_model(body)
        messages = _messages(body)
        s = _sampling(body, None)
        done = self.run([self.chat.template(messages)], s, "messages")
        return {
            "id": f"chatcmpl-{uuid.uuid4().hex}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.model_name,
            "choices": [
                {
                    "index": i,
                    "message": {"role": "assistant", "content": c.text, "refusal": None},
                    "logprobs": None,
                    "finish_reason": c.finish_reason,
                }
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


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "paperkit-lm"
    server: _HTTPServer
    #: monotonic time by which the request being read must have arrived whole; None while it is answered.
    #: The server's poll loop (``_HTTPServer.service_actions``) enforces it, so a client trickling bytes
    #: cannot stretch it the way it stretches a per-recv socket timeout.
    deadline: float | None = None
    timed_out = False

    def setup(self) -> None:
        super().setup()
        self.connection.settimeout(self.server.request_timeout)  # per socket operation: the write backstop
        self.server.track(self, True)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.track(self, False)

    def handle_one_request(self) -> None:
        self.deadline = time.monotonic() + self.server.request_timeout
        super().handle_one_request()

    def late(self) -> _Error:
        return _Error(
            408,
            f"the request did not arrive in full within {self.server.request_timeout:g} s",
            code="request_timeout",
        )

    def check_deadline(self, *, arrived: bool) -> None:
        """408 if the deadline passed; with ``arrived`` (the whole request is read) disarm it."""
        if arrived:
            self.deadline = None
        if self.timed_out:
            self.close_connection = True
            raise self.late()

    def log_message(self, format: str, *args: Any) -> None:
        log = self.server.backend.log
        if log is not None:
            log(f"{self.address_string()} - {format % args}")

    def send_json(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if status == 401:
            self.send_header("WWW-Authenticate", 'Bearer realm="paperkit-lm"')
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        # http.server's own errors (bad request line, unsupported method, ...) in OpenAI's JSON shape.
        self.close_connection = True
        err = _Error(code, message or explain or "bad request")
        if self.timed_out:  # a request line or headers cut off at the deadline
            err = self.late()
        if self.request_version == "HTTP/0.9":  # an unparseable request line: still answer with a status line
            self.request_version = "HTTP/1.1"
        with contextlib.suppress(OSError):
            self.send_json(err.status, _error_body(err))

    def read_body(self) -> dict[str, Any]:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            self.close_connection = True
            raise _Error(411, "chunked request bodies are not supported; send Content-Length")
        raw_length = self.headers.get("Content-Length")
        if raw_length is None:
            self.close_connection = True
            raise _Error(411, "a Content-Length header is required")
        try:
            length = int(raw_length)
            if length < 0:
                raise ValueError
        except ValueError:
            self.close_connection = True
            raise _Error(400, f"bad Content-Length {raw_length!r}") from None
        if length > MAX_BODY_BYTES:
            self.close_connection = True
            raise _Error(413, f"request body over {MAX_BODY_BYTES} bytes")
        data = self.rfile.read(length)
        self.check_deadline(arrived=True)
        if len(data) < length:
            self.close_connection = True
            raise _Error(400, "request body shorter than its Content-Length")
        return parse_body(data)

    def authorise(self) -> None:
        key = self.server.backend.api_key
        if key is None:
            return
        header = self.headers.get("Authorization", "")
        given = header[7:].strip() if header[:7].lower() == "bearer " else ""
        if not hmac.compare_digest(given.encode(), key.encode()):
            raise _Error(401, "Incorrect or missing API key", code="invalid_api_key")

    def dispatch(self, method: str) -> None:
        backend = self.server.backend
        path = self.path.split("?", 1)[0].rstrip("/")
        try:
            if method != "POST" and self.headers.get("Content-Length", "0").strip() != "0":
                self.close_connection = True  # an unexpected body we do not read: do not reuse the connection
            self.check_deadline(arrived=method != "POST")
            body = self.read_body() if method == "POST" else None
            if path == "/health" and method == "GET":
                self.send_json(200, {"status": "ok"})
                return
            if not path.startswith("/v1/") and path != "/v1":
                raise _Error(404, f"unknown path {path or '/'}; the API lives under /v1", code="not_found")
            self.authorise()
            routes: dict[str, tuple[str, Callable[[], dict[str, Any]]]] = {
                "/v1/models": ("GET", lambda: {"object": "list", "data": [backend.model_card()]}),
                "/v1/chat/completions": ("POST", lambda: backend.chat_completion(body or {})),
                "/v1/completions": ("POST", lambda: backend.completion(body or {})),
            }
            if path.startswith("/v1/models/"):
                name = path[len("/v1/models/") :]
                if name != backend.model_name:
                    raise _Error(
                        404, f"The model '{name}' does not exist", param="model", code="model_not_found"
                    )
                routes[path] = ("GET", backend.model_card)
            if path not in routes:
                raise _Error(404, f"unknown path {path}", code="not_found")
            want, handler = routes[path]
            if method != want:
                raise _Error(405, f"{path} takes {want}, not {method}", code="method_not_allowed")
            self.send_json(200, handler())
        except _Error as err:
            self.send_json(err.status, _error_body(err))
        except (TimeoutError, ConnectionError):
            self.close_connection = True
        except Exception as err:  # a bug or a model failure: report it, keep serving
            self.close_connection = True
            self.log_message("internal error: %r", err)
            self.send_json(500, _error_body(_Error(500, f"internal error: {type(err).__name__}: {err}")))

    def do_GET(self) -> None:
        self.dispatch("GET")

    def do_POST(self) -> None:
        self.dispatch("POST")

    def do_PUT(self) -> None:
        self.dispatch("PUT")

    def do_DELETE(self) -> None:
        self.dispatch("DELETE")

    def do_PATCH(self) -> None:
        self.dispatch("PATCH")


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(
        self,
        address: tuple[str, int],
        backend: _Backend,
        family: socket.AddressFamily,
        *,
        max_connections: int = MAX_CONNECTIONS,
        request_timeout: float = REQUEST_TIMEOUT_S,
    ) -> None:
        self.address_family = family
        self.backend = backend
        self.max_connections, self.request_timeout = max_connections, request_timeout
        self._handlers: set[_Handler] = set()
        self._open = 0  # connections accepted and not yet finished (counted before their thread starts)
        self._conn_lock = threading.Lock()
        super().__init__(address, _Handler)

    def server_bind(self) -> None:
        # TCPServer's bind, without HTTPServer's reverse-DNS lookup of the host (getfqdn).
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = str(self.server_address[0]), int(self.server_address[1])

    @property
    def open_connections(self) -> int:
        with self._conn_lock:
            return self._open

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._conn_lock:
            full = self._open >= self.max_connections
            if not full:
                self._open += 1
        if full:
            self._refuse(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            with self._conn_lock:
                self._open -= 1
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            with self._conn_lock:
                self._open -= 1

    def _refuse(self, request: socket.socket) -> None:
        # Answered from the accepting thread, without reading the request: no thread per refused client.
        err = _Error(
            503,
            f"the server holds {self.max_connections} open connections, its limit; retry shortly",
            code="too_many_connections",
            kind="server_error",
        )
        data = json.dumps(_error_body(err)).encode()
        head = (
            "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(data)}\r\nConnection: close\r\nRetry-After: 1\r\n\r\n"
        )
        with contextlib.suppress(OSError):
            request.settimeout(1.0)
            request.sendall(head.encode() + data)
        self.shutdown_request(request)

    def service_actions(self) -> None:
        # Called by serve_forever every poll interval: cut off requests past their deadline. SHUT_RD ends the
        # handler's blocked read (it sees end of input) and still lets it answer 408.
        super().service_actions()
        now = time.monotonic()
        with self._conn_lock:
            late = [h for h in self._handlers if h.deadline is not None and h.deadline < now]
        for handler in late:
            handler.timed_out = True
            handler.deadline = None
            with contextlib.suppress(OSError):
                handler.connection.shutdown(socket.SHUT_RD)

    def track(self, handler: _Handler, alive: bool) -> None:
        with self._conn_lock:
            (self._handlers.add if alive else self._handlers.discard)(handler)

    def drop_connections(self) -> None:
        with self._conn_lock:
            for handler in list(self._handlers):
                with contextlib.suppress(OSError):
                    handler.connection.shutdown(socket.SHUT_RDWR)

    def handle_error(self, request: Any, client_address: Any) -> None:
        log = self.backend.log
        if log is not None:
            log(f"error while serving {client_address}")


class LMServer:
    """A running server (see :func:`serve`): ``.url`` (the API root, ending in ``/v1``), ``.host``,
    ``.port``, ``.model_name``, ``.open_connections``; ``.close()`` stops it; also a context manager."""

    def __init__(self, httpd: _HTTPServer, host: str, model_name: str) -> None:
        self._httpd = httpd
        self.host = host
        self.port: int = int(httpd.server_address[1])
        self.model_name = model_name
        shown = f"[{host}]" if ":" in host else host
        self.url = f"http://{shown}:{self.port}/v1"
        self._thread = threading.Thread(
            target=httpd.serve_forever, args=(0.05,), name=f"paperkit-lm:{self.port}", daemon=True
        )
        self._closed = False
        self._thread.start()

    @property
    def open_connections(self) -> int:
        """Connections accepted and not yet closed (at most ``max_connections``)."""
        return self._httpd.open_connections

    def close(self) -> None:
        """Stop serving, close open connections and the socket; idempotent."""
        if self._closed:
            return
        self._closed = True
        self._httpd.shutdown()
        self._httpd.drop_connections()
        self._httpd.server_close()
        self._thread.join()

    def wait(self) -> None:
        """Block until the server is closed (from another thread) or the process is interrupted."""
        while self._thread.is_alive():
            self._thread.join(0.5)

    def __enter__(self) -> LMServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"LMServer(url={self.url!r}, model_name={self.model_name!r}, closed={self._closed})"


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
    if not isinstance(host, str) or not host:
        raise TypeError(f"host must be a non-empty str, got {host!r}")
    if not allow_remote and not is_loopback(host):
        raise ValueError(
            f"host {host!r} is not a loopback address; serving beyond this machine needs allow_remote=True"
        )
    if not isinstance(port, int) or isinstance(port, bool) or not 0 <= port <= 65535:
        raise ValueError(f"port must be an int in [0, 65535], got {port!r}")
    if api_key is not None and (not isinstance(api_key, str) or not api_key):
        raise ValueError("api_key must be None or a non-empty string")
    if not isinstance(model_name, str) or not model_name.strip():
        raise ValueError(f"model_name must be a non-empty string, got {model_name!r}")
    if isinstance(max_connections, bool) or not isinstance(max_connections, int) or max_connections < 1:
        raise ValueError(f"max_connections must be a positive int, got {max_connections!r}")
    if (
        isinstance(request_timeout, bool)
        or not isinstance(request_timeout, (int, float))
        or not 0 < request_timeout < math.inf
    ):
        raise ValueError(
            f"request_timeout must be a positive finite number of seconds, got {request_timeout!r}"
        )
    chat = HFChatModel(model, tokenizer, template=template, seed=seed)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    httpd = _HTTPServer(
        (host, port),
        _Backend(chat, model_name=model_name, api_key=api_key, log=log),
        family,
        max_connections=max_connections,
        request_timeout=float(request_timeout),
    )
    return LMServer(httpd, host, model_name)
