"""A loopback JSON-over-HTTP server core (stdlib only, no torch): what paperkit's servers share.

An *app* is a callable ``app(request: Request) -> (status, payload)``; it may raise :class:`HTTPError` for a
4xx/5xx answer. This module does the rest, the same way for every app:

- bind checks: a non-loopback host is refused unless ``allow_remote=True`` (:func:`check_bind`);
- a thread a connection, at most ``max_connections`` open at once: one more is answered 503 from the
  accepting thread and closed, so idle or slow clients cannot grow the server's threads;
- a deadline (``request_timeout`` s) for a client to send a whole request, counted from the first byte
  waited for and enforced by the poll loop: a client trickling bytes is cut off (408 if its body was still
  arriving); an idle keep-alive connection is closed after the same time;
- POST bodies: ``Content-Length`` required (411 without it or for chunked bodies), at most
  ``max_body_bytes`` (413), a JSON object (400 for bad JSON, NaN/Infinity, an integer Python cannot read,
  nesting deeper than ``max_json_depth``, a lone UTF-16 surrogate) — :func:`parse_json_object`;
- every answer is JSON, errors in one shape ``{"error": {"message", "type", "param", "code"}}`` (OpenAI's),
  also for http.server's own errors (bad request line, unknown method); an app's unexpected exception is a
  500 naming it and the server keeps serving; it never answers with HTML;
- API keys: :func:`check_bearer` (``Authorization: Bearer <key>``, compared in constant time) for apps
  that want one; 401 answers carry ``WWW-Authenticate``.

Example::

    def app(req: Request) -> tuple[int, dict]:
        check_bearer(req.headers, "secret")
        return 200, {"path": req.path, "echo": req.json}

    with start_server(app) as server:
        ...  # POST JSON to server.url
"""

from __future__ import annotations

import contextlib
import hmac
import ipaddress
import json
import math
import socket
import socketserver
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MAX_BODY_BYTES = 4 * 2**20
MAX_JSON_DEPTH = 64
MAX_CONNECTIONS = 32
REQUEST_TIMEOUT_S = 30.0

__all__ = [
    "MAX_BODY_BYTES",
    "MAX_CONNECTIONS",
    "MAX_JSON_DEPTH",
    "REQUEST_TIMEOUT_S",
    "App",
    "HTTPError",
    "JSONServer",
    "Request",
    "RunningServer",
    "ServerSettings",
    "check_bearer",
    "check_bind",
    "error_body",
    "is_loopback",
    "parse_json_object",
    "start_server",
]


class HTTPError(Exception):
    """An answer other than 200: ``status``, a ``message`` for people, and optional ``param`` (the request
    field at fault) and ``code`` (a stable machine-readable reason); ``kind`` defaults by status."""

    def __init__(
        self, status: int, message: str, *, param: str | None = None, code: str | None = None, kind: str = ""
    ) -> None:
        super().__init__(message)
        self.status, self.message, self.param, self.code = status, message, param, code
        self.kind = kind or ("invalid_request_error" if status < 500 else "server_error")


def error_body(err: HTTPError) -> dict[str, Any]:
    """The JSON payload of an error answer."""
    return {"error": {"message": err.message, "type": err.kind, "param": err.param, "code": err.code}}


# --- checks --------------------------------------------------------------------------------------------


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses (127.0.0.0/8, ::1)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_bind(host: object, port: object, *, allow_remote: bool = False) -> None:
    """Raise TypeError/ValueError naming ``host`` or ``port`` unless they make a bindable address that is
    loopback (or ``allow_remote``)."""
    if not isinstance(host, str) or not host:
        raise TypeError(f"host must be a non-empty str, got {host!r}")
    if not allow_remote and not is_loopback(host):
        raise ValueError(
            f"host {host!r} is not a loopback address; serving beyond this machine needs allow_remote=True"
        )
    if not isinstance(port, int) or isinstance(port, bool) or not 0 <= port <= 65535:
        raise ValueError(f"port must be an int in [0, 65535], got {port!r}")


def check_bearer(headers: Message[str, str] | Mapping[str, str], key: str | None) -> None:
    """HTTPError(401) unless ``headers`` carry ``Authorization: Bearer <key>``; no check when key is None."""
    if key is None:
        return
    header = headers.get("Authorization", "") or ""
    given = header[7:].strip() if header[:7].lower() == "bearer " else ""
    if not hmac.compare_digest(given.encode(), key.encode()):
        raise HTTPError(401, "Incorrect or missing API key", code="invalid_api_key")


def _reject_constant(name: str) -> Any:
    raise HTTPError(400, f"the request body is not valid JSON: {name} is not a JSON number")


_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


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


def parse_json_object(data: bytes, *, max_depth: int = MAX_JSON_DEPTH) -> dict[str, Any]:
    """``data`` as a JSON object, or HTTPError(400) saying what is wrong with it."""
    if not _depth_ok(data, max_depth):
        raise HTTPError(400, f"the request body nests JSON deeper than {max_depth} levels")
    try:
        body = json.loads(data, parse_constant=_reject_constant)
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise HTTPError(400, f"the request body is not valid JSON: {err}") from None
    except RecursionError:
        raise HTTPError(400, f"the request body nests JSON deeper than {max_depth} levels") from None
    except ValueError as err:  # an integer of more than 4300 digits (Python's int_max_str_digits)
        message = f"the request body holds a number that cannot be read: {str(err)[:120]}"
        raise HTTPError(400, message) from None
    if not isinstance(body, dict):
        raise HTTPError(400, "the request body must be a JSON object")
    try:
        json.dumps(body, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise HTTPError(
            400, "the request body holds a lone UTF-16 surrogate (\\ud800-\\udfff), not text"
        ) from None
    return body


# --- the server ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Request:
    """One request as an app sees it: ``path`` without the query string or a trailing slash; ``body`` the
    raw bytes and ``json`` the parsed object of a POST (both None otherwise)."""

    method: str
    path: str
    headers: Message[str, str]
    body: bytes | None
    json: dict[str, Any] | None


App = Callable[[Request], tuple[int, dict[str, Any]]]


@dataclass(frozen=True)
class ServerSettings:
    """Limits and names of a server (see the module docstring for what each limit does)."""

    max_body_bytes: int = MAX_BODY_BYTES
    max_json_depth: int = MAX_JSON_DEPTH
    max_connections: int = MAX_CONNECTIONS
    request_timeout: float = REQUEST_TIMEOUT_S
    name: str = "paperkit"  # the Server header, the thread name and the 401 realm

    def __post_init__(self) -> None:
        for field in ("max_body_bytes", "max_json_depth", "max_connections"):
            value = getattr(self, field)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{field} must be a positive int, got {value!r}")
        t = self.request_timeout
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not 0 < t < math.inf:
            raise ValueError(f"request_timeout must be a positive finite number of seconds, got {t!r}")
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"name must be a non-empty str, got {self.name!r}")


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: JSONServer
    #: monotonic time by which the request being read must have arrived whole; None while it is answered.
    #: The server's poll loop (``JSONServer.service_actions``) enforces it, so a client trickling bytes
    #: cannot stretch it the way it stretches a per-recv socket timeout.
    deadline: float | None = None
    timed_out = False

    def version_string(self) -> str:
        return f"{self.server.settings.name} {self.sys_version}"

    def setup(self) -> None:
        super().setup()
        self.connection.settimeout(self.server.settings.request_timeout)  # per socket operation: a backstop
        self.server.track(self, True)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.track(self, False)

    def handle_one_request(self) -> None:
        self.deadline = time.monotonic() + self.server.settings.request_timeout
        super().handle_one_request()

    def late(self) -> HTTPError:
        return HTTPError(
            408,
            f"the request did not arrive in full within {self.server.settings.request_timeout:g} s",
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
        log = self.server.log
        if log is not None:
            log(f"{self.address_string()} - {format % args}")

    def send_json(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if status == 401:
            self.send_header("WWW-Authenticate", f'Bearer realm="{self.server.settings.name}"')
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        # http.server's own errors (bad request line, unsupported method, ...) in the JSON error shape.
        self.close_connection = True
        err = HTTPError(code, message or explain or "bad request")
        if self.timed_out:  # a request line or headers cut off at the deadline
            err = self.late()
        if self.request_version == "HTTP/0.9":  # an unparseable request line: still answer with a status line
            self.request_version = "HTTP/1.1"
        with contextlib.suppress(OSError):
            self.send_json(err.status, error_body(err))

    def read_body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            self.close_connection = True
            raise HTTPError(411, "chunked request bodies are not supported; send Content-Length")
        raw_length = self.headers.get("Content-Length")
        if raw_length is None:
            self.close_connection = True
            raise HTTPError(411, "a Content-Length header is required")
        try:
            length = int(raw_length)
            if length < 0:
                raise ValueError
        except ValueError:
            self.close_connection = True
            raise HTTPError(400, f"bad Content-Length {raw_length!r}") from None
        limit = self.server.settings.max_body_bytes
        if length > limit:
            self.close_connection = True
            raise HTTPError(413, f"request body over {limit} bytes")
        data = self.rfile.read(length)
        self.check_deadline(arrived=True)
        if len(data) < length:
            self.close_connection = True
            raise HTTPError(400, "request body shorter than its Content-Length")
        return data

    def dispatch(self, method: str) -> None:
        path = self.path.split("?", 1)[0].rstrip("/")
        try:
            if method != "POST" and self.headers.get("Content-Length", "0").strip() != "0":
                self.close_connection = True  # an unexpected body we do not read: do not reuse the connection
            self.check_deadline(arrived=method != "POST")
            raw = self.read_body() if method == "POST" else None
            parsed = None
            if raw is not None:
                parsed = parse_json_object(raw, max_depth=self.server.settings.max_json_depth)
            status, payload = self.server.app(Request(method, path, self.headers, raw, parsed))
            self.send_json(status, payload)
        except HTTPError as err:
            self.send_json(err.status, error_body(err))
        except (TimeoutError, ConnectionError):
            self.close_connection = True
        except Exception as err:  # a bug or a model failure: report it, keep serving
            self.close_connection = True
            self.log_message("internal error: %r", err)
            self.send_json(500, error_body(HTTPError(500, f"internal error: {type(err).__name__}: {err}")))

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


class JSONServer(ThreadingHTTPServer):
    """The bounded threading HTTP server behind :func:`start_server` (bound on construction)."""

    daemon_threads = True

    def __init__(
        self,
        address: tuple[str, int],
        app: App,
        *,
        settings: ServerSettings = ServerSettings(),
        log: Callable[[str], None] | None = None,
    ) -> None:
        self.address_family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        self.app, self.settings, self.log = app, settings, log
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
            full = self._open >= self.settings.max_connections
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
        err = HTTPError(
            503,
            f"the server holds {self.settings.max_connections} open connections, its limit; retry shortly",
            code="too_many_connections",
            kind="server_error",
        )
        data = json.dumps(error_body(err)).encode()
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
        if self.log is not None:
            self.log(f"error while serving {client_address}")


class RunningServer:
    """A server serving from a background thread: ``.url`` (``http://host:port``), ``.host``, ``.port``,
    ``.open_connections``; ``.close()`` stops it; also a context manager."""

    def __init__(self, httpd: JSONServer, host: str) -> None:
        self._httpd = httpd
        self.host = host
        self.port: int = int(httpd.server_address[1])
        shown = f"[{host}]" if ":" in host else host
        self.url = f"http://{shown}:{self.port}"
        self._thread = threading.Thread(
            target=httpd.serve_forever, args=(0.05,), name=f"{httpd.settings.name}:{self.port}", daemon=True
        )
        self._closed = False
        self._thread.start()

    @property
    def open_connections(self) -> int:
        """Connections accepted and not yet closed (at most ``max_connections``)."""
        return self._httpd.open_connections

    @property
    def closed(self) -> bool:
        """True once :meth:`close` was called."""
        return self._closed

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

    def __enter__(self) -> RunningServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(url={self.url!r}, closed={self._closed})"


def start_server(
    app: App,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    allow_remote: bool = False,
    settings: ServerSettings = ServerSettings(),
    log: Callable[[str], None] | None = None,
) -> RunningServer:
    """Serve ``app`` from a background thread and return at once (``port=0`` picks a free port).

    ``host`` must be loopback unless ``allow_remote``; ``log`` gets one line per request (None: silent).
    """
    check_bind(host, port, allow_remote=allow_remote)
    if not callable(app):
        raise TypeError(f"app must be callable, got {type(app).__name__}")
    if not isinstance(settings, ServerSettings):
        raise TypeError(f"settings must be a ServerSettings, got {type(settings).__name__}")
    return RunningServer(JSONServer((host, port), app, settings=settings, log=log), host)
