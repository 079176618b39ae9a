"""``run(config, *, seed, device) -> Report``: exactness, the patching heat-map, remote parity, transfer
and overhead timings (process CPU time, interleaved ABAB repetitions, medians)."""

from __future__ import annotations

import concurrent.futures as cf
import secrets
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from paperkit import Report, check_seed, torch_threads

from intervention_graph.gradients import autograd_grads, graph_grads, hook_grads
from intervention_graph.methods import METHODS, TASKS, graph_task, hook_task
from intervention_graph.models import ANSWER_POSITION, SEQ_LEN, copy_pairs, tiny_gpt2, train_copy
from intervention_graph.remote import RemoteBackend, serve
from intervention_graph.reproduce.claims import claims
from intervention_graph.reproduce.config import Config
from intervention_graph.reproduce.curves import client_curve, payload_curve
from intervention_graph.reproduce.tables import tables
from intervention_graph.tracer import wrap

__all__ = ["abab", "exactness", "gradients", "heatmap", "remote_checks", "run", "timings"]


def exactness(config: Config, seed: int, device: str) -> dict[str, list[float]]:
    """max |method - hooks| per task and method, one entry per paired seed (same model, same pairs)."""
    out: dict[str, list[float]] = {f"{m}/{t}": [] for m in METHODS for t in TASKS}
    for s in range(seed, seed + config.seeds):
        model = tiny_gpt2(seed=s, device=device, dtype=torch.float64)  # spec: float64 for the check
        data = copy_pairs(config.exact_pairs, seed=s, device=device)
        worst = dict.fromkeys(out, 0.0)
        for task in TASKS:
            for layer in range(len(model.transformer.h)):
                kw: dict[str, Any] = {"task": task, "layer": layer, "position": ANSWER_POSITION}
                ref = hook_task(model, data.clean, data.corrupt, **kw)
                for name, info in METHODS.items():
                    got = info.run(model, data.clean, data.corrupt, **kw)
                    key = f"{name}/{task}"
                    worst[key] = max(worst[key], float((got - ref).abs().max()))
        for key, value in worst.items():
            out[key].append(value)
    return out


#: (edit layer, scale, position) of the gradient checks: none, a zeroed and a halved block gradient
GRAD_EDITS: tuple[tuple[int | None, float, int], ...] = ((None, 1.0, 0), (2, 0.0, SEQ_LEN - 1),
                                                        (1, 0.5, ANSWER_POSITION))  # fmt: skip


def gradients(config: Config, seed: int, device: str) -> dict[str, list[float]]:
    """Per paired seed: max |traced - hand-written| block-output gradients (reads; zero and scale edits),
    max |traced - autograd.grad| without an edit, and how much each edit moved block 0's gradient."""
    out: dict[str, list[float]] = {"hooks": [], "autograd": [], "edit_effect": []}
    for s in range(seed, seed + config.seeds):
        model = tiny_gpt2(seed=s, device=device, dtype=torch.float64)
        data = copy_pairs(config.exact_pairs, seed=s, device=device)
        plain = graph_grads(model, data.clean, data.answer)
        out["autograd"].append(float((plain - autograd_grads(model, data.clean, data.answer)).abs().max()))
        worst, effect = 0.0, float("inf")
        for layer, scale, pos in GRAD_EDITS:
            kw: dict[str, Any] = {"edit_layer": layer, "scale": scale, "position": pos}
            ours = graph_grads(model, data.clean, data.answer, **kw)
            worst = max(worst, float((ours - hook_grads(model, data.clean, data.answer, **kw)).abs().max()))
            if layer is not None:
                effect = min(effect, float((ours[0] - plain[0]).abs().max()))
        out["hooks"].append(worst)
        out["edit_effect"].append(effect)
    return out


def sweep(
    model: torch.nn.Module, data: Any, layers: int, method: Callable[..., torch.Tensor]
) -> torch.Tensor:
    """(layers, SEQ_LEN, pairs) patched logit difference (answer - wrong) at the final position."""
    n = data.clean.shape[0]
    rows = torch.arange(n)
    out = torch.empty(layers, SEQ_LEN, n, dtype=torch.float64)
    for layer in range(layers):
        for pos in range(SEQ_LEN):
            logits = method(model, data.clean, data.corrupt, task="patching", layer=layer, position=pos)[n:]
            out[layer, pos] = (logits[rows, data.answer] - logits[rows, data.wrong]).double().cpu()
    return out


def heatmap(config: Config, seed: int, device: str) -> dict[str, Any]:
    """Train the copy model, sweep patching; recovery (patched - corrupt) / (clean - corrupt), both ways."""
    torch.manual_seed(seed)
    model = tiny_gpt2(seed=seed, device=device)
    losses = train_copy(model, steps=config.train_steps, seed=seed)
    data = copy_pairs(config.sweep_pairs, seed=seed + 7919, device=device)
    with torch.no_grad():
        lc, lx = model(data.clean).logits[:, -1], model(data.corrupt).logits[:, -1]
    rows = torch.arange(config.sweep_pairs)
    acc = float((lc.argmax(-1) == data.answer).float().mean())
    ld_clean = (lc[rows, data.answer] - lc[rows, data.wrong]).double().cpu()
    ld_corrupt = (lx[rows, data.answer] - lx[rows, data.wrong]).double().cpu()
    ours = sweep(model, data, config.sweep_layers, graph_task)
    hooks = sweep(model, data, config.sweep_layers, hook_task)
    recovery = ((ours - ld_corrupt) / (ld_clean - ld_corrupt)).mean(-1)
    return {
        "accuracy": acc, "final_loss": losses[-1] if losses else float("nan"), "recovery": recovery.numpy(),
        "sweep_max_abs_diff": float((ours - hooks).abs().max()), "interventions": int(ours.numel()),
        "model": model, "data": data,
    }  # fmt: skip


def abab(a: Callable[[], Any], b: Callable[[], Any], reps: int) -> tuple[np.ndarray, np.ndarray]:
    """Process CPU seconds of ``a`` and ``b``, interleaved (AB, BA alternating), after one warm-up each."""
    a(), b()
    ta, tb = np.zeros(reps), np.zeros(reps)
    for r in range(reps):
        order = ((ta, a), (tb, b)) if r % 2 == 0 else ((tb, b), (ta, a))
        for arr, fn in order:
            t0 = time.process_time()
            fn()
            arr[r] = time.process_time() - t0
    return ta, tb


def timings(config: Config, model: torch.nn.Module, data: Any, device: str) -> dict[str, Any]:
    """The sweep (ours vs hooks) and one small trace vs a plain forward (``timing_batch`` rows)."""

    def ours() -> Any:
        return sweep(model, data, config.sweep_layers, graph_task)

    def hooks() -> Any:
        return sweep(model, data, config.sweep_layers, hook_task)

    t_ours, t_hooks = abab(ours, hooks, config.sweep_reps)
    ids = copy_pairs(config.timing_batch, seed=1, device=device).clean
    m = wrap(model)

    def plain() -> Any:
        with torch.no_grad():
            return model(ids).logits

    def trace() -> Any:
        with m.trace(ids):
            h = m.transformer.h[1].output.save()
        return h.value

    t_plain, t_trace = abab(plain, trace, config.fixed_reps)

    def first(stop: bool) -> Callable[[], Any]:
        def go() -> Any:
            with m.trace(ids) as tr:
                h = m.transformer.h[0].output.save()
                if stop:
                    tr.stop()  # early exit: blocks 1-3, ln_f and lm_head never run
            return h.value

        return go

    t_full0, t_stop = abab(first(False), first(True), config.fixed_reps)
    return {"sweep_ours_s": t_ours, "sweep_hooks_s": t_hooks, "plain_s": t_plain, "trace_s": t_trace,
            "block0_s": t_full0, "block0_stop_s": t_stop}  # fmt: skip


def remote_checks(config: Config, model: torch.nn.Module, data: Any) -> dict[str, Any]:
    """Local vs remote on the same graphs; transfer bytes; concurrent clients' latencies."""
    secret = secrets.token_bytes(32)
    diffs, sizes, ids, latencies = [], [], [], []
    with serve({"gpt2": model}, {"k": secret}) as server:
        client = RemoteBackend(server.url, "k", secret, "gpt2")
        for task in TASKS:
            local = graph_task(model, data.clean, data.corrupt, task=task, layer=1, position=ANSWER_POSITION)
            remote = graph_task(model, data.clean, data.corrupt, task=task, layer=1, position=ANSWER_POSITION,
                                backend=client)  # fmt: skip
            diffs.append(float((local - remote).abs().max()))
            sizes.append((client.last_response_bytes, 4 * -(-remote.numel() * remote.element_size() // 3)))
            ids.append(client.last_meta["weights_id"])
        kw: dict[str, Any] = {"edit_layer": 2, "scale": 0.0, "position": SEQ_LEN - 1}
        # the trained model keeps its training's last .grad: the gradient jobs must leave it as it was
        before = [None if p.grad is None else p.grad.clone() for p in model.parameters()]
        local = graph_grads(model, data.clean, data.answer, **kw)
        diffs.append(
            float((local - graph_grads(model, data.clean, data.answer, backend=client, **kw)).abs().max())
        )
        ids.append(client.last_meta["weights_id"])
        after = [p.grad for p in model.parameters()]
        grad_untouched = all(
            (b is None and a is None) or (b is not None and a is not None and torch.equal(b, a))
            for b, a in zip(before, after, strict=True)
        )

        def job(i: int) -> float:
            c = RemoteBackend(server.url, "k", secret, "gpt2")
            t0 = time.perf_counter()
            graph_task(model, data.clean, data.corrupt, task=TASKS[i % 3], layer=i % 4, position=6, backend=c)
            ids.append(c.last_meta["weights_id"])
            return time.perf_counter() - t0

        t0 = time.perf_counter()
        with cf.ThreadPoolExecutor(config.remote_clients) as pool:
            latencies = list(pool.map(job, range(config.remote_jobs)))
        wall = time.perf_counter() - t0
        done = server.jobs_done
    return {"max_abs_diff": max(diffs), "sizes": sizes, "weights_ids": len(set(ids)), "latencies": latencies,
            "jobs_per_s": config.remote_jobs / wall, "jobs_done": done,
            "params_grad_untouched": grad_untouched}  # fmt: skip


@torch_threads(1)  # tiny models: one thread is fastest, and timings are single-threaded by design
def run(config: Config, *, seed: int = 0, device: str = "cpu") -> Report:
    """The whole reproduction; claims judged in :mod:`claims`."""
    check_seed(seed)
    exact = exactness(config, seed, device)
    grads = gradients(config, seed, device)
    heat = heatmap(config, seed, device)
    model, data = heat.pop("model"), heat.pop("data")
    times = timings(config, model, data, device) if config.timing else {}
    remote = remote_checks(config, model, data)
    if not config.timing:  # latencies are wall-clock: left out where a run must repeat exactly
        remote = {k: v for k, v in remote.items() if k not in ("latencies", "jobs_per_s")}
    curves = {
        "payload": payload_curve(model, config.payload_mb) if config.payload_mb else [],
        "clients": client_curve(model, data, config.client_counts) if config.client_counts else [],
    }
    records = {
        "exact": exact,
        "grads": grads,
        "heat": heat,
        "times": times,
        "remote": remote,
        "curves": curves,
    }
    return Report(
        metrics=records,
        claims=claims(records, config),
        tables=tables(records, config),
        notes=[
            f"{config.seeds} paired seeds for exactness (float64 model); heat-map model trained "
            f"{config.train_steps} steps; {heat['interventions']} patching interventions per sweep.",
            "Timings are process CPU seconds, interleaved ABAB after one warm-up, medians.",
        ],
    )
