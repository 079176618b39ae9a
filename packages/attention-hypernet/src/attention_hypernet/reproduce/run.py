"""``run(config, *, seed, device) -> Report``: exactness gate, paired fuzzy-logic runs, sraven report."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import torch
from paperkit import Report, check_seed, torch_threads, track

from attention_hypernet.attention import HyperAttention, apply_generated
from attention_hypernet.methods import MixerRun, run_methods
from attention_hypernet.reproduce.claims import claims
from attention_hypernet.reproduce.config import Config
from attention_hypernet.reproduce.tables import tables

__all__ = ["exactness_errors", "run", "run_logic", "run_sraven"]


def exactness_errors(dtype: torch.dtype, *, seed: int, device: str) -> dict[str, float]:
    """Max |forward - hypernetwork form| / max(1, max |forward|) per (norm, value net, bias, mask).

    Linear value nets are checked against ``sum_k W_{q,k} x_k`` (biases off, the paper's form); every value
    net (HYLA included) against its generated per-(q, k) network with biases on.
    """
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(4, 9, 16, generator=gen, dtype=dtype).to(device)
    mask = (torch.rand(4, 1, 9, 9, generator=gen) > 0.3).to(device)
    bias = torch.randn(1, 8, 9, 9, generator=gen, dtype=dtype).to(device)
    out: dict[str, float] = {}
    for norm in ("softmax", "none", "rms_head"):
        for vn in ("linear", "linear_mlp", "relu_mlp"):
            for use_bias in (False, True):
                att = HyperAttention(
                    16, 8, 16, 16, norm=norm, value_net=vn, bias=use_bias, generator=gen, dtype=dtype
                ).to(device)
                with torch.no_grad():
                    if use_bias:
                        for lin in (att.query, att.key, att.value, att.out):
                            lin.bias.copy_(torch.randn(lin.bias.shape, generator=gen, dtype=dtype))
                    for m in (None, mask):
                        y = att(x, m, bias)
                        tag = ("bias" if use_bias else "nobias", "mask" if m is not None else "full")
                        key = f"{norm}/{vn}/{tag[0]}/{tag[1]}"
                        diff = (y - apply_generated(att.value_network(x, m, bias), x)).abs().max()
                        if vn != "relu_mlp" and not use_bias:
                            W = att.hypernetwork_weights(x, m, bias)
                            diff = torch.maximum(diff, (y - torch.einsum("bqkij,bkj->bqi", W, x)).abs().max())
                        # relative to the output's scale: unnormalised linear scores make |y| ~ 1e2
                        out[key] = float(diff / y.abs().max().clamp(min=1.0))
    return out


def run_logic(config: Config, seeds: tuple[int, ...], device: str) -> dict[str, list[MixerRun]]:
    """``{mixer: [run per seed]}``; seed s fixes the train/test split, init, data order and test problems.

    The seeds of one mixer train as one stacked model (``run_methods``; equal to separate runs up to float
    rounding)."""
    out: dict[str, list[MixerRun]] = {}
    for m in track(config.logic_mixers, desc="fuzzy logic"):
        jobs = [(m, replace(config.logic, seed=s), s) for s in seeds]
        out[m] = run_methods(jobs, config.logic_train, device=device, eval_n=config.eval_n)
    return out


def run_sraven(config: Config, seeds: tuple[int, ...], device: str) -> dict[str, list[MixerRun]]:
    """The report-only mini-sraven runs (its OOD split is fixed by the task's own seed, as in the code)."""
    if config.sraven is None:
        return {}
    out: dict[str, list[MixerRun]] = {}
    for m in track(config.sraven_mixers, desc="sraven"):
        jobs = [(m, config.sraven, s) for s in seeds[: config.sraven_seeds]]
        out[m] = run_methods(jobs, config.sraven_train, device=device, eval_n=config.eval_n)
    return out


def _record(runs: dict[str, list[MixerRun]]) -> dict[str, Any]:
    return {
        m: [
            {
                "metrics": r.metrics,
                "probe_r2": r.probe_r2,
                "probe_r2_init": r.probe_r2_init,
                "loss_curve": r.losses.reshape(-1, max(1, len(r.losses) // 50)).mean(1).tolist()
                if len(r.losses) >= 50
                else r.losses.tolist(),
            }
            for r in rs
        ]
        for m, rs in runs.items()
    }


def run(config: Config, *, seed: int = 0, device: str = "cpu") -> Report:
    seed = check_seed(seed)
    seeds = tuple(range(seed, seed + config.n_seeds))
    with torch_threads(1):  # tiny models: one thread is fastest, and a second one spins on a shared machine
        exact = {
            "f64": exactness_errors(torch.float64, seed=seed, device=device),
            "f32": exactness_errors(torch.float32, seed=seed, device=device),
        }
        logic = run_logic(config, seeds, device)
        sraven = run_sraven(config, seeds, device)
    cl = claims(exact, logic, sraven, config, seeds)
    metrics = {"exactness": exact, "logic": _record(logic), "sraven": _record(sraven), "seeds": list(seeds)}
    lt, task = config.logic_train, config.logic
    notes = [
        f"Fuzzy logic: {task.num_vars} variables, {task.num_terms} terms, {task.seq_len} points per problem, "
        f"{len(task.terms('ood'))} OOD tasks; Transformer d_model {lt.d_model}, {lt.n_layers} layers, "
        f"{lt.n_heads} heads, d_qk {lt.d_qk}, d_v {lt.d_v}, MLP {lt.d_mlp}; AdamW lr {lt.lr}, "
        f"wd {lt.weight_decay}, "
        f"batch {lt.batch_size}, {lt.steps} steps ({lt.warmup} warmup, cosine to 0.1 lr); "
        f"seeds {list(seeds)} "
        "(the seed fixes the split, init, training problems and test problems of every mixer: paired).",
        "One tuning cell (lr 3e-3, the official sweep's upper value) for every mixer (README, Deviations).",
    ]
    if config.sraven is not None:
        sv, st = config.sraven, config.sraven_train
        notes.append(
            f"sraven (report only): {sv.num_features} features, {sv.num_values} values, {sv.grid}x{sv.grid}, "
            f"{len(sv.combinations('ood'))} of {len(sv.all_combinations())} rule combinations held out; "
            f"{st.steps} steps, batch {st.batch_size}, lr {st.lr}, {config.sraven_seeds} seed(s)."
        )
    return Report(metrics=metrics, claims=cl, tables=tables(exact, logic, sraven), notes=notes)
