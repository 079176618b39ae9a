"""Remote execution (the NDIF idea, small): a loopback server that hosts models and runs clients' graphs.

``POST /v1/execute`` takes a job in the JSON wire format (:mod:`intervention_graph.serialize`) and answers
``{"saved": {name: value}, "meta": {...}}`` — only the saved values travel back. The HTTP core (bind
checks, body limit, deadlines, bounded connections, JSON 4xx errors) is :mod:`paperkit.serve`.

Authentication: a key id and a shared secret. The client sends ``X-IG-Key``, ``X-IG-Timestamp``,
``X-IG-Nonce`` and ``X-IG-Signature = hex HMAC-SHA256(secret, "POST|path|timestamp|nonce|sha256(body)")``;
the server refuses with 401, before decoding the graph, an unknown key, a bad signature (tampered
body), a timestamp outside +-300 s and a nonce already seen (replay). Nothing a client sends is
unpickled or executed: the graph is data, checked against the op allow-list and the model's module
names. Jobs of one model run one at a time on its single loaded instance (a lock is the queue); each job
has a time limit (checked at every hook), after which it is cancelled with 504 and the next job runs.
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import json
import secrets
import threading
import time
import urllib.parse
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from paperkit.serve import HTTPError, JSONServer, Request, RunningServer, ServerSettings, check_bind
from paperkit.validation import check_positive
from torch import nn

from intervention_graph.executor import JobTimeout, execute
from intervention_graph.graph import Graph, GraphError
from intervention_graph.serialize import (
    Job,
    WireLimits,
    decode_value,
    encode_value,
    job_from_obj,
    job_to_json,
)

__all__ = ["GraphServer", "Limits", "RemoteBackend", "RemoteError", "serve", "sign"]

PATH = "/v1/execute"


@dataclass(frozen=True)
class Limits:
    """The server's limits (defaults: the spec's)."""

    max_body_bytes: int = 64 * 2**20
    max_nodes: int = 100_000
    job_seconds: float = 60.0
    max_saved_bytes: int = 256 * 2**20
    replay_window_s: float = 300.0
    max_connections: int = 32
    request_timeout: float = 30.0
    max_backward: int = 1  # backward passes per job (each keeps the forward's autograd graph alive)


def sign(secret: bytes, method: str, path: str, timestamp: str, nonce: str, body: bytes) -> str:
    """hex HMAC-SHA256 over ``method|path|timestamp|nonce|sha256(body)``."""
    digest = hashlib.sha256(body).hexdigest()
    return hmac.new(
        secret, f"{method}|{path}|{timestamp}|{nonce}|{digest}".encode(), hashlib.sha256
    ).hexdigest()


class _Auth:
    def __init__(self, keys: Mapping[str, bytes], window: float) -> None:
        self.keys, self.window = dict(keys), window
        self.seen: OrderedDict[str, float] = OrderedDict()
        self.lock = threading.Lock()

    def check(self, req: Request) -> None:
        h = req.headers
        key_id, ts, nonce, sig = (h.get(k, "") or "" for k in ("X-IG-Key", "X-IG-Timestamp", "X-IG-Nonce",
                                                                "X-IG-Signature"))  # fmt: skip
        secret = self.keys.get(key_id)
        expected = sign(secret or b"", req.method, req.path, ts, nonce, req.body or b"")
        if secret is None or not hmac.compare_digest(expected, sig):
            raise HTTPError(401, "unknown key or bad signature", code="invalid_signature")
        try:
            skew = abs(time.time() - float(ts))
        except ValueError:
            raise HTTPError(401, "bad timestamp", code="invalid_signature") from None
        if not skew <= self.window:
            raise HTTPError(401, f"timestamp outside +-{self.window:g} s", code="stale_request")
        with self.lock:
            now = time.time()
            while self.seen and next(iter(self.seen.values())) < now - 2 * self.window:
                self.seen.popitem(last=False)
            if nonce in self.seen or not nonce:
                raise HTTPError(401, "nonce already used (replay)", code="replayed_request")
            self.seen[nonce] = now


class GraphServer(RunningServer):
    """A running graph server (:func:`serve`): ``.url``, ``.port``, ``.jobs_done``; ``.close()``."""

    jobs_done = 0

    def __enter__(self) -> GraphServer:
        return self


def _weights_id(model: nn.Module) -> str:
    ptrs = ",".join(str(p.data_ptr()) for p in model.parameters())
    return hashlib.sha256(ptrs.encode()).hexdigest()[:16]


def _saved_bytes(values: Mapping[str, Any]) -> int:
    import torch

    return sum(v.numel() * v.element_size() for v in values.values() if isinstance(v, torch.Tensor))


def serve(
    models: Mapping[str, nn.Module],
    keys: Mapping[str, bytes],
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    limits: Limits = Limits(),
    allow_remote: bool = False,
) -> GraphServer:
    """Host ``models`` (key -> module, loaded once) for clients holding one of ``keys`` (id -> secret)."""
    if (
        not isinstance(models, Mapping)
        or not models
        or not all(isinstance(m, nn.Module) for m in models.values())
    ):
        raise TypeError("models must be a non-empty mapping of names to nn.Module")
    if (
        not isinstance(keys, Mapping)
        or not keys
        or not all(isinstance(s, bytes) and s for s in keys.values())
    ):
        raise TypeError("keys must be a non-empty mapping of key ids to non-empty bytes secrets")
    if not isinstance(limits, Limits):
        raise TypeError(f"limits must be a Limits, got {type(limits).__name__}")
    auth = _Auth(keys, limits.replay_window_s)
    locks = {name: threading.Lock() for name in models}
    names = {name: frozenset(dict(m.named_modules())) for name, m in models.items()}
    wire = WireLimits(
        max_nodes=limits.max_nodes, max_tensor_bytes=limits.max_body_bytes, max_backward=limits.max_backward
    )
    state: dict[str, GraphServer] = {}

    def app(req: Request) -> tuple[int, dict[str, Any]]:
        if req.path == "/health" and req.method == "GET":
            return 200, {"status": "ok", "models": sorted(models)}
        if req.path != PATH:
            raise HTTPError(404, f"unknown path {req.path or '/'}; jobs go to POST {PATH}", code="not_found")
        if req.method != "POST":
            raise HTTPError(405, f"{PATH} takes POST, not {req.method}", code="method_not_allowed")
        auth.check(req)
        try:
            job = job_from_obj(req.json, wire)
            if job.model_key not in models:
                raise HTTPError(404, f"unknown model_key {job.model_key!r}; hosted: {sorted(models)}",
                                param="model_key", code="model_not_found")  # fmt: skip
            job.graph.validate(names[job.model_key])
        except GraphError as err:
            raise HTTPError(400, f"invalid graph: {err}", code="invalid_graph") from None
        model = models[job.model_key]
        t0 = time.monotonic()
        with locks[job.model_key]:  # one job at a time per loaded model: the queue
            queued = time.monotonic() - t0
            try:
                saved = execute(job.graph, model, job.inputs, deadline=time.monotonic() + limits.job_seconds)
            except JobTimeout:
                raise HTTPError(504, f"the job ran past {limits.job_seconds:g} s and was cancelled",
                                code="job_timeout", kind="server_error") from None  # fmt: skip
            except (GraphError, TypeError, ValueError, RuntimeError) as err:
                raise HTTPError(422, f"the graph failed on the model: {err}", code="graph_failed") from None
        if _saved_bytes(saved) > limits.max_saved_bytes:
            raise HTTPError(
                413, f"saved values exceed {limits.max_saved_bytes} bytes", code="saves_too_large"
            )
        state["server"].jobs_done += 1
        # Times as fixed-width strings: the response's size must not depend on them (claim 3 counts bytes).
        run_s = time.monotonic() - t0 - queued
        meta = {"queued_s": f"{queued:014.6f}", "run_s": f"{run_s:014.6f}", "weights_id": _weights_id(model)}
        try:
            return 200, {"saved": {k: encode_value(v) for k, v in saved.items()}, "meta": meta}
        except TypeError as err:
            raise HTTPError(422, f"a saved value cannot be sent: {err}", code="graph_failed") from None

    settings = ServerSettings(
        max_body_bytes=limits.max_body_bytes, max_connections=limits.max_connections,
        request_timeout=limits.request_timeout, name="intervention-graph",
    )  # fmt: skip
    check_bind(host, port, allow_remote=allow_remote)
    state["server"] = GraphServer(JSONServer((host, port), app, settings=settings), host)
    return state["server"]


def _port_ok(parts: urllib.parse.SplitResult) -> bool:
    try:
        parts.port  # noqa: B018 (reading it validates it: urllib raises on a port that is not a number)
    except ValueError:
        return False
    return True


class RemoteError(RuntimeError):
    """The server refused or failed a job: ``status`` and the server's ``message``."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"HTTP {status}: {message}")
        self.status, self.message = status, message


class RemoteBackend:
    """Send traces to a :func:`serve` server: ``model.trace(x, backend=RemoteBackend(url, key_id, secret,
    model_key))``. ``last_response_bytes`` and ``last_meta`` describe the last job."""

    def __init__(
        self, url: str, key_id: str, secret: bytes, model_key: str, *, timeout: float = 60.0
    ) -> None:
        parts = urllib.parse.urlsplit(url) if isinstance(url, str) else None
        if (
            parts is None
            or parts.scheme not in ("http", "https")
            or not parts.hostname
            or not _port_ok(parts)
        ):
            raise ValueError(f"url must be an http(s) URL such as http://127.0.0.1:8000, got {url!r}")
        if not isinstance(secret, bytes) or not secret:
            raise TypeError("secret must be non-empty bytes")
        check_positive(timeout, "timeout")
        self._parts = parts
        self.url, self.key_id, self.secret, self.model_key, self.timeout = (
            url,
            key_id,
            secret,
            model_key,
            timeout,
        )
        self.last_response_bytes = 0
        self.last_meta: dict[str, Any] = {}

    def run(self, graph: Graph, envoy: Any, inputs: tuple[Any, ...]) -> dict[str, Any]:
        return self.submit(Job(self.model_key, graph, inputs))

    def submit(self, job: Job) -> dict[str, Any]:
        """POST ``job``; the saved values (RemoteError on a refusal)."""
        body = job_to_json(job).encode()
        ts, nonce = f"{time.time():.3f}", secrets.token_hex(16)
        headers = {
            "Content-Type": "application/json", "X-IG-Key": self.key_id, "X-IG-Timestamp": ts,
            "X-IG-Nonce": nonce, "X-IG-Signature": sign(self.secret, "POST", PATH, ts, nonce, body),
        }  # fmt: skip
        status, data = self._post(self._parts.path.rstrip("/") + PATH, body, headers)
        if status >= 400:
            try:
                message = json.loads(data)["error"]["message"]
            except (ValueError, KeyError, TypeError):
                message = data[:200].decode(errors="replace")
            raise RemoteError(status, message)
        self.last_response_bytes = len(data)
        reply = json.loads(data)
        self.last_meta = reply["meta"]
        budget = [len(data)]
        return {k: decode_value(v, budget=budget) for k, v in reply["saved"].items()}

    def _post(self, path: str, body: bytes, headers: Mapping[str, str]) -> tuple[int, bytes]:
        """One POST over http.client (http or https only: no other URL scheme can be reached)."""
        kind = http.client.HTTPSConnection if self._parts.scheme == "https" else http.client.HTTPConnection
        conn = kind(str(self._parts.hostname), self._parts.port, timeout=self.timeout)
        try:
            conn.request("POST", path, body=body, headers=dict(headers))
            response = conn.getresponse()
            return response.status, response.read()
        finally:
            conn.close()
