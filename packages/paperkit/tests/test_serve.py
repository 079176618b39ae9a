"""paperkit.serve: the loopback JSON server core, over real HTTP on 127.0.0.1 (stdlib only, no torch)."""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest
from paperkit.serve import (
    HTTPError,
    Request,
    RunningServer,
    ServerSettings,
    check_bearer,
    check_bind,
    is_loopback,
    parse_json_object,
    start_server,
)

KEY = "k-123"


def app(req: Request) -> tuple[int, dict[str, Any]]:
    if req.path == "/boom":
        raise RuntimeError("kaput")
    if req.path == "/missing":
        raise HTTPError(404, "no such thing", param="path", code="not_found")
    check_bearer(req.headers, KEY)
    return 200, {"method": req.method, "path": req.path, "json": req.json, "bytes": len(req.body or b"")}


@pytest.fixture(scope="module")
def server() -> Iterator[RunningServer]:
    settings = ServerSettings(max_body_bytes=1000, max_json_depth=8, name="t-serve")
    with start_server(app, settings=settings) as srv:
        yield srv


def call(
    server: RunningServer, method: str, path: str, body: bytes | None = None, auth: bool = True
) -> tuple[int, Any, http.client.HTTPResponse]:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        headers = {"Authorization": f"Bearer {KEY}"} if auth else {}
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        assert response.getheader("Content-Type") == "application/json"
        return response.status, json.loads(response.read()), response
    finally:
        conn.close()


def test_a_post_reaches_the_app_parsed(server: RunningServer) -> None:
    assert server.url == f"http://127.0.0.1:{server.port}"
    status, payload, response = call(server, "POST", "/echo/?q=1", b'{"a": [1, 2]}')
    assert status == 200
    assert payload == {"method": "POST", "path": "/echo", "json": {"a": [1, 2]}, "bytes": 13}
    assert response.getheader("Server", "").startswith("t-serve")
    status, payload, _ = call(server, "GET", "/x")
    assert (status, payload["json"]) == (200, None)


def test_missing_or_wrong_key_is_401_with_a_challenge(server: RunningServer) -> None:
    status, payload, response = call(server, "GET", "/x", auth=False)
    assert status == 401 and payload["error"]["code"] == "invalid_api_key"
    assert response.getheader("WWW-Authenticate") == 'Bearer realm="t-serve"'
    with pytest.raises(HTTPError, match="API key"):
        check_bearer({"Authorization": "Bearer k-12"}, KEY)
    check_bearer({}, None)  # no key configured: no check


@pytest.mark.parametrize(
    ("body", "status", "fragment"),
    [
        (b"x" * 1001, 413, "over 1000 bytes"),
        (b"{bad", 400, "not valid JSON"),
        (b"[1]", 400, "must be a JSON object"),
        (b'{"a": NaN}', 400, "NaN is not a JSON number"),
        (b'{"a":' + b"[" * 9 + b"]" * 9 + b"}", 400, "deeper than 8"),
        (b'{"a": "\\ud800"}', 400, "surrogate"),
    ],
)
def test_bad_bodies_are_4xx_json(server: RunningServer, body: bytes, status: int, fragment: str) -> None:
    got, payload, _ = call(server, "POST", "/echo", body)
    assert got == status and fragment in payload["error"]["message"]
    assert set(payload["error"]) == {"message", "type", "param", "code"}


def test_app_errors_are_json_and_the_server_keeps_serving(server: RunningServer) -> None:
    status, payload, _ = call(server, "GET", "/missing")
    assert status == 404 and payload["error"] == {
        "message": "no such thing",
        "type": "invalid_request_error",
        "param": "path",
        "code": "not_found",
    }
    status, payload, _ = call(server, "GET", "/boom")
    assert status == 500 and "RuntimeError: kaput" in payload["error"]["message"]
    assert call(server, "GET", "/x")[0] == 200


def test_raw_protocol_errors_are_json(server: RunningServer) -> None:
    for request, code in [
        (b"POST /echo HTTP/1.1\r\nHost: x\r\n\r\n", b"411"),  # no Content-Length
        (b"BREW /pot HTTP/1.1\r\nHost: x\r\n\r\n", b"501"),  # http.server's own error
        (b"garbage\r\n\r\n", b"400"),
    ]:
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
            s.sendall(request)
            reply = b""
            while chunk := s.recv(65536):
                reply += chunk
        assert reply.startswith(b"HTTP/1.1 " + code) and b'"error"' in reply, reply[:200]


def test_connections_over_the_limit_get_503_and_a_slow_client_408() -> None:
    settings = ServerSettings(max_connections=1, request_timeout=1.0)
    with start_server(app, settings=settings) as srv:
        slow = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
        slow.sendall(b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 50\r\n\r\n{")  # then stalls
        deadline = time.monotonic() + 5
        while srv.open_connections < 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        with socket.create_connection(("127.0.0.1", srv.port), timeout=10) as extra:
            assert b"too_many_connections" in extra.recv(4096)
        reply = b""
        for _ in range(60):  # a byte every 0.1 s: no single recv times out, the request deadline does
            try:
                slow.sendall(b"X")
            except OSError:
                break
            time.sleep(0.1)
            slow.setblocking(False)
            with contextlib.suppress(BlockingIOError):
                reply += slow.recv(65536)
            slow.setblocking(True)
            if reply:
                break
        slow.close()
        assert reply.startswith(b"HTTP/1.1 408") and b"request_timeout" in reply, reply[:200]
    assert srv.closed


def test_bind_and_settings_checks_name_the_argument() -> None:
    assert is_loopback("localhost") and is_loopback("127.0.0.2") and is_loopback("::1")
    assert not is_loopback("0.0.0.0") and not is_loopback("example.org")
    with pytest.raises(ValueError, match="allow_remote=True"):
        start_server(app, host="0.0.0.0")
    with pytest.raises(TypeError, match="host must be a non-empty str"):
        check_bind(None, 0)
    with pytest.raises(ValueError, match="port must be an int"):
        check_bind("127.0.0.1", 70000)
    check_bind("0.0.0.0", 0, allow_remote=True)
    with pytest.raises(TypeError, match="app must be callable"):
        start_server("app")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_connections must be a positive int"):
        ServerSettings(max_connections=0)
    with pytest.raises(ValueError, match="request_timeout must be a positive finite"):
        ServerSettings(request_timeout=float("inf"))
    with pytest.raises(HTTPError, match="number that cannot be read"):
        parse_json_object(b'{"a": ' + b"9" * 5000 + b"}")


def test_the_module_imports_no_torch() -> None:
    code = "import sys, paperkit.serve; sys.exit('torch' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0
