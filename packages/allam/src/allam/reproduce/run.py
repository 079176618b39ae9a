"""``run(config, *, seed, device) -> Report``: per seed one world and one A-pretrained base, every variant
branched from it (paired), curves of B and A bits per byte along CPT, final QA in both languages."""

from __future__ import annotations

import contextlib
import dataclasses
import multiprocessing
import os
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np
from paperkit import Report, Tuned, check_seed, package_version, torch_threads, tune

from allam.align import ALIGN_METHODS, align_model, align_probes, split_facts
from allam.data import qa_probes, translation_probes
from allam.methods import Substrate, adapt, make_substrate, pretrain_base
from allam.metrics import bits_per_byte, qa_scores
from allam.reproduce.claims import claims
from allam.reproduce.config import Config
from allam.reproduce.tables import tables
from allam.tokenizer import fertility

__all__ = [
    "alignment",
    "base_job",
    "base_model",
    "dev_cell",
    "evaluate",
    "job_map",
    "question_qa",
    "run",
    "run_seed",
    "seed_job",
    "serial_map",
    "tune_lrs",
]


Map = Callable[[Callable[[Any], Any], list[Any]], list[Any]]


def serial_map(fn: Callable[[Any], Any], jobs: list[Any]) -> list[Any]:
    """``[fn(j) for j in jobs]`` in this process."""
    return [fn(j) for j in jobs]


@contextlib.contextmanager
def job_map(config: Config, device: str) -> Iterator[Map]:
    """A map over independent jobs: ``config.workers`` spawned processes (one torch thread each) on CPU
    when the bases are cached (workers share them through the cache), else in this process. Every job
    computes the same numbers either way, so the results do not depend on the number of workers."""
    workers = min(config.workers, os.cpu_count() or 1)
    if workers <= 1 or device != "cpu" or not config.cache:
        yield serial_map
        return
    context = multiprocessing.get_context("spawn")  # a fresh interpreter: no forked torch state
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        yield lambda fn, jobs: list(pool.map(fn, jobs))


def base_job(job: tuple[Config, int, str]) -> float:
    """Train (or load) the A base of one seed into the cache; returns its final training loss."""
    config, seed, device = job
    with torch_threads(1):
        sub = make_substrate(config.world, seed=seed, vocab_a=config.vocab, vocab_b=config.vocab)
        return float(base_model(sub, config, seed, device)[1]["final_loss"])


def seed_job(job: tuple[Config, int, str, dict[str, float]]) -> dict[str, Any]:
    """:func:`run_seed` with one torch thread (a worker process's job)."""
    config, seed, device, lrs = job
    with torch_threads(1):
        return run_seed(config, seed, device, lrs)


def base_model(sub: Substrate, config: Config, seed: int, device: str) -> tuple[Any, dict[str, Any]]:
    """The A-pretrained base of ``seed`` (from the model cache when ``config.cache``)."""
    kw = {"steps": config.pretrain_steps, "batch_size": config.pretrain_batch, "lr": config.pretrain_lr,
          "seed": seed, "device": device}  # fmt: skip
    if not config.cache:
        model, losses = pretrain_base(sub, config.model, **kw)  # type: ignore[arg-type]
        return model, {"final_loss": losses[-1], "cached": False}
    from paperkit.lm import cached_model, tiny_causal_lm

    mc = config.model
    key = {
        "world": config.world,
        "model": mc,
        "vocab": config.vocab,
        **{k: v for k, v in kw.items() if k != "device"},
    }
    box: dict[str, Any] = {}

    def train(m: Any) -> dict[str, Any]:
        trained, losses = pretrain_base(sub, mc, **kw)  # type: ignore[arg-type]
        m.load_state_dict(trained.state_dict())
        box["loss"] = losses[-1]
        return {"final_loss": losses[-1]}

    make = lambda: tiny_causal_lm(sub.tok_a, n_layer=mc.n_layer, n_head=mc.n_head, d_model=mc.d_model,  # noqa: E731
                                  max_positions=mc.seq_len, seed=seed, device=device)  # fmt: skip
    hit = cached_model(key, seed=seed, version=package_version("iclr25-allam"), make=make, train=train,
                       device=device)  # fmt: skip
    hit.model.eval()
    return hit.model, {**hit.info, "cached": hit.hit}


def evaluate(model: Any, tok: Any, sub: Substrate, device: str) -> dict[str, float]:
    """Held-out bits per byte in A and B; QA (rank score, exact match) on A-stated facts in A, on A-only
    facts asked in B (transfer), on B-stated facts in B, and the in-context translation gate (A-only
    facts, their A sentence in context)."""
    w = sub.world
    out = {
        "a_bpb": bits_per_byte(model, tok, sub.texts["a_eval"], device=device),
        "b_bpb": bits_per_byte(model, tok, sub.texts["b_eval"], device=device),
    }
    probes = {
        "qa_a": qa_probes(w.of("A", "AB"), "A", w),
        "qa_b_aonly": qa_probes(w.of("A"), "B", w),
        "qa_b_stated": qa_probes(w.of("AB", "B"), "B", w),
        "icl_b_aonly": translation_probes(w.of("A"), w),
    }
    for key, ps in probes.items():
        q = qa_scores(model, tok, ps, device=device)
        out[f"{key}_rank"] = float(q["rank_score"].mean())
        out[f"{key}_em"] = float(q["exact"].mean())
    return out


def question_qa(model: Any, tok: Any, sub: Substrate, facts: Any, device: str) -> dict[str, float]:
    """Question-format QA (the alignment stage's format) on ``facts``, per language that states them."""
    out = {}
    for lang in ("A", "B"):
        q = qa_scores(model, tok, align_probes(facts, sub.world, lang), device=device)
        out[f"{lang}_rank"] = float(q["rank_score"].mean())
        out[f"{lang}_em"] = float(q["exact"].mean())
    return out


def alignment(model: Any, tok: Any, sub: Substrate, config: Config, lrs: dict[str, float], seed: int,
              device: str) -> dict[str, Any]:  # fmt: skip
    """The CPT model, SFT alone and SFT + DPO, scored on the held-out facts' question QA."""
    align_facts, held = split_facts(sub.world, config.align.align_frac, seed=seed)
    out: dict[str, Any] = {"cpt": question_qa(model, tok, sub, held, device)}
    for method in ALIGN_METHODS:
        cfg = dataclasses.replace(config.align, lr=lrs[method])
        aligned, losses = align_model(model, tok, sub.world, align_facts, cfg, method=method, seed=seed,
                                device=device)  # fmt: skip
        out[method] = {**question_qa(aligned, tok, sub, held, device),
                       "loss_last": {k: float(np.mean(v[-5:])) for k, v in losses.items()}}  # fmt: skip
    return out


def dev_cell(job: tuple[Config, str, float, str]) -> float:
    """One tuning cell: variant ``name`` at CPT lr ``lr`` on the dev world (its base from the cache when
    ``config.cache``), scored by the final B QA rank score on B-stated facts; a diverging cell scores NaN
    (the worst), it does not stop the run. One torch thread, so a worker process gives the same number."""
    config, name, lr, device = job
    s = config.dev_seed
    with torch_threads(1):
        sub = make_substrate(config.world, seed=s, vocab_a=config.vocab, vocab_b=config.vocab)
        base, _ = base_model(sub, config, s, device)
        cpt = dataclasses.replace(config.cpt, lr=lr)
        try:
            model, tok, _ = adapt(name, base, sub, cpt, seq_len=config.model.seq_len, seed=s, device=device)
        except FloatingPointError:
            return float("nan")
        probes = qa_probes(sub.world.of("AB", "B"), "B", sub.world)
        return float(qa_scores(model, tok, probes, device=device)["rank_score"].mean())


def tune_lrs(config: Config, device: str, pmap: Map = serial_map) -> dict[str, Tuned]:
    """Every CPT variant over ``lr_grid`` and every alignment method over ``align_lr_grid``, at the judged
    budgets, on the dev world (seed ``dev_seed``): CPT by the final B QA rank score on B-stated facts
    (the claims' measure of B acquisition; ties go to the smaller lr), alignment by the held-out facts'
    question-QA rank score (mean of A and B). ``pmap`` maps the CPT cells (in worker processes)."""
    s = config.dev_seed
    cells = [(name, lr) for name in config.variants for lr in config.lr_grid]
    scores = dict(zip(cells, pmap(dev_cell, [(config, n, lr, device) for n, lr in cells]), strict=True))
    fixed = {"steps": config.cpt.steps, "batch_size": config.cpt.batch_size}
    out = tune(lambda name, setting: scores[name, setting["lr"]], config.variants, {"lr": config.lr_grid},
               fixed=fixed)  # fmt: skip
    sub = make_substrate(config.world, seed=s, vocab_a=config.vocab, vocab_b=config.vocab)
    base, _ = base_model(sub, config, s, device)
    cpt = dataclasses.replace(config.cpt, lr=out["expand_mean"].best["lr"])
    model, tok, _ = adapt("expand_mean", base, sub, cpt, seq_len=config.model.seq_len, seed=s, device=device)
    align_facts, held = split_facts(sub.world, config.align.align_frac, seed=s)

    def align_score(method: str, setting: Any) -> float:
        cfg = dataclasses.replace(config.align, lr=setting["lr"])
        aligned, _ = align_model(
            model, tok, sub.world, align_facts, cfg, method=method, seed=s, device=device
        )
        q = question_qa(aligned, tok, sub, held, device)
        return (q["A_rank"] + q["B_rank"]) / 2

    fixed = {"steps_per_stage": config.align.steps, "batch_size": config.align.batch_size}
    tuned_align = tune(align_score, ALIGN_METHODS, {"lr": config.align_lr_grid}, fixed=fixed)
    return out | {f"align:{k}": v for k, v in tuned_align.items()}


def run_seed(config: Config, seed: int, device: str, lrs: dict[str, float] | None = None) -> dict[str, Any]:
    """Everything measured under one seed: substrate, base, every variant (curves and final metrics)
    at its tuned lr (``lrs``; default: ``config.cpt.lr`` and ``config.align.lr``), then alignment of
    the method's model."""
    lrs = lrs or {**{v: config.cpt.lr for v in config.variants},
                  **{f"align:{m}": config.align.lr for m in ALIGN_METHODS}}  # fmt: skip
    sub = make_substrate(config.world, seed=seed, vocab_a=config.vocab, vocab_b=config.vocab)
    base, info = base_model(sub, config, seed, device)
    b_texts = sub.texts["b_train"]
    b_fit = b_texts[:: max(1, len(b_texts) // 40)]  # a fixed sample of B training text (fit, not held out)
    rec: dict[str, Any] = {
        "fertility_orig": fertility(sub.tok_a, b_texts),
        "fertility_expanded": fertility(sub.expansion.tokenizer, b_texts),
        "fertility_a": fertility(sub.tok_a, sub.texts["a_train"]),
        "n_new_tokens": len(sub.expansion.new_ids),
        "n_skipped_existing": len(sub.expansion.skipped_existing),
        "n_refused": len(sub.expansion.refused),
        "base": {**evaluate(base, sub.tok_a, sub, device), "train_loss": info["final_loss"]},
        "variants": {},
        "lr": dict(lrs),
    }
    for name in config.variants:
        curve: list[dict[str, float]] = []

        def hook(model: Any, tok: Any, step: int, curve: list[dict[str, float]] = curve) -> None:
            texts = {"b_bpb": sub.texts["b_eval"], "a_bpb": sub.texts["a_eval"], "b_bpb_train": b_fit}
            curve.append({"step": step} | {k: bits_per_byte(model, tok, t, device=device)
                                            for k, t in texts.items()})  # fmt: skip

        cpt = dataclasses.replace(config.cpt, lr=lrs[name])
        model, tok, losses = adapt(name, base, sub, cpt, seq_len=config.model.seq_len, seed=seed,
                                   device=device, callback=hook, every=config.every)  # fmt: skip
        rec["variants"][name] = {"curve": curve, "final": evaluate(model, tok, sub, device),
                                 "loss_last": float(np.mean(losses[-10:]))}  # fmt: skip
        if name == "expand_mean":
            align_lrs = {m: lrs[f"align:{m}"] for m in ALIGN_METHODS}
            rec["align"] = alignment(model, tok, sub, config, align_lrs, seed, device)
    return rec


def run(config: Config, *, seed: int = 0, device: str = "cpu") -> Report:
    seed = check_seed(seed)
    seeds = tuple(range(seed, seed + config.n_seeds))
    # one thread a process: stable CPU time on a shared machine; the bases first (in parallel when
    # there are workers), then the tuning cells, then the seeds
    with torch_threads(1), job_map(config, device) as pmap:
        if pmap is not serial_map:
            bases = (config.dev_seed, *seeds) if config.tune else seeds
            pmap(base_job, [(config, s, device) for s in bases])
        tuned = tune_lrs(config, device, pmap) if config.tune else {}
        lrs = {k: float(t.best["lr"]) for k, t in tuned.items()} or dict(config.chosen_lr)
        out = pmap(seed_job, [(config, s, device, lrs) for s in seeds])
        records = dict(zip(seeds, out, strict=True))
    cl = claims(records, config, seeds)
    c, m = config.cpt, config.model
    notes = [
        f"World: {config.world.n_entities} entities x 4 relations, {config.world.n_values} values each; "
        f"facts split A-only/both/B-only {config.world.split}; seeds {list(seeds)} (world, base init, data).",
        f"Base: GPT-2 d{m.d_model} x {m.n_layer} layers, rows of {m.seq_len} tokens, {config.pretrain_steps} "
        f"steps x {config.pretrain_batch} rows on A text (lr {config.pretrain_lr}).",
        f"CPT: {c.steps} steps x {c.batch_size} rows of {m.seq_len} tokens for every variant (replay ratio "
        f"{c.replay_ratio}); B and A bits per byte on held-out template-5 text every {config.every} steps.",
        f"Tuning: every variant tried every CPT lr of {list(config.lr_grid)} at the same budget on the dev "
        f"world (seed {config.dev_seed}; final B QA rank score on B-stated facts); alignment methods every "
        f"lr of "
        f"{list(config.align_lr_grid)} ({config.align.steps} updates a stage; held-out question QA rank "
        f"score). Chosen: {lrs}."
        if config.tune
        else f"No tuning stage at this scale: the lrs the full run's dev-world tuning chose: {lrs}.",
    ]
    tab = tables(records, config)
    if tuned:  # quick and smoke scales have no tuning stage, so no empty table
        tab["Tuning on the dev world (same grid and budget for every method)"] = [
            row for t in tuned.values() for row in t.rows()]  # fmt: skip
    metrics = {"per_seed": {str(s): r for s, r in records.items()}, "seeds": list(seeds), "lr": lrs,
               "tuning": {k: t.rows() for k, t in tuned.items()}}  # fmt: skip
    return Report(metrics=metrics, claims=cl, tables=tab, notes=notes)
