"""The spec's remote figures (c) and (d): round-trip latency vs saved-payload size, split into execution,
serialisation and the rest (HTTP, auth, copies); and jobs/s with 1, 2, 4 concurrent clients on one model.
Wall-clock seconds (what a user waits), measured on the shared machine: reported, not claimed."""

from __future__ import annotations

import concurrent.futures as cf
import json
import secrets
import time
from typing import Any

import numpy as np
import torch

from intervention_graph.methods import TASKS, graph_task
from intervention_graph.models import copy_pairs
from intervention_graph.remote import RemoteBackend, serve
from intervention_graph.serialize import decode_value, encode_value
from intervention_graph.tracer import wrap

__all__ = ["client_curve", "payload_curve"]


def _big_save(model: torch.nn.Module, ids: torch.Tensor, n: int, backend: Any) -> torch.Tensor:
    """One trace saving ``n`` float32 values (the logits, flattened and repeated): the payload."""
    m = wrap(model)
    per = ids.shape[0] * ids.shape[1] * int(model.config.vocab_size)  # type: ignore[union-attr, arg-type]
    with m.trace(ids, backend=backend):
        flat = m.lm_head.output.flatten()
        big = torch.cat([flat] * -(-n // per))[:n].save()  # type: ignore[attr-defined]
    return big.value


def payload_curve(model: torch.nn.Module, sizes_mb: tuple[float, ...]) -> list[dict[str, float]]:
    """Per payload size: total round trip, the server's execution, (de)serialisation (timed here on the
    same value: encode + JSON + decode), and the remainder, in wall seconds."""
    secret, rows = secrets.token_bytes(32), []
    ids = copy_pairs(8, seed=3).clean
    with serve({"gpt2": model}, {"k": secret}) as server:
        client = RemoteBackend(server.url, "k", secret, "gpt2")
        _big_save(model, ids, 1024, client)  # warm-up
        for mb in sizes_mb:
            n = int(mb * 2**20 / 4)
            t0 = time.perf_counter()
            value = _big_save(model, ids, n, client)
            total = time.perf_counter() - t0
            t1 = time.perf_counter()
            text = json.dumps({"saved": {"x": encode_value(value)}})
            decode_value(json.loads(text)["saved"]["x"], budget=[len(text)])
            ser = time.perf_counter() - t1
            run = float(client.last_meta["run_s"])
            rows.append({"payload_mb": mb, "bytes": float(client.last_response_bytes), "total_s": total,
                         "execute_s": run, "serialise_s": ser, "other_s": total - run - ser})  # fmt: skip
    return rows


def client_curve(model: torch.nn.Module, data: Any, counts: tuple[int, ...],
                 jobs_per_client: int = 4) -> list[dict[str, float]]:  # fmt: skip
    """Per client count: jobs/s and latency percentiles of ``jobs_per_client`` jobs per client."""
    secret, rows = secrets.token_bytes(32), []
    with serve({"gpt2": model}, {"k": secret}) as server:

        def job(i: int) -> float:
            c = RemoteBackend(server.url, "k", secret, "gpt2")
            t0 = time.perf_counter()
            graph_task(model, data.clean, data.corrupt, task=TASKS[i % 3], layer=i % 4, position=6, backend=c)
            return time.perf_counter() - t0

        job(0)  # warm-up
        for clients in counts:
            jobs = clients * jobs_per_client
            t0 = time.perf_counter()
            with cf.ThreadPoolExecutor(clients) as pool:
                lat = np.asarray(list(pool.map(job, range(jobs)))) * 1e3
            wall = time.perf_counter() - t0
            p50, p90 = np.percentile(lat, [50, 90])
            rows.append({"clients": float(clients), "jobs": float(jobs), "jobs_per_s": jobs / wall,
                         "p50_ms": float(p50), "p90_ms": float(p90)})  # fmt: skip
    return rows
