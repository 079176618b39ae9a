"""``run(config, *, seed, device) -> Report``: one tiny LM per dataset, then LLEGO, GP and CART per seed."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from paperkit import Report, check_seed, torch_threads, track

from llego.algorithm import evolve, initial_population, summary
from llego.baselines import cart, gatree
from llego.data import load, split
from llego.prompts import CompactLanguage
from llego.reproduce.claims import claims
from llego.reproduce.config import Config
from llego.reproduce.tables import tables
from llego.tiny_lm import train_tiny_lm

__all__ = ["SeedRecord", "run", "run_dataset"]


@dataclass(frozen=True)
class SeedRecord:
    """What one (dataset, seed) produced: LLEGO with its probes, GP at LLEGO's budget, CART, C4.5 stand-in."""

    dataset: str
    seed: int
    llego: dict[str, Any]
    gp: dict[str, Any]
    cart: dict[str, float]
    c45: dict[str, float] | None


def _ind(ind: Any) -> dict[str, float]:
    return {"train": ind.train, "val": ind.val, "test": ind.test}


def run_dataset(
    name: str, config: Config, seed: int, device: str
) -> tuple[list[SeedRecord], dict[str, float]]:
    """Train the tiny LM on the first seed's D_train, then evolve every seed with it (paired methods)."""
    base = split(load(name), seed)
    lang = CompactLanguage(base, max_depth=config.max_depth)
    llm, info = train_tiny_lm(base, lang, config.lm, seed=seed, device=device)
    records = []
    for s in track(range(seed, seed + config.n_seeds), desc=f"{name} seeds"):
        sp = split(load(name), s)
        init = initial_population(sp, config.llego.pop_size, config.max_depth, s, lang.canonical)
        res = evolve(sp, llm, lang, config.llego, seed=s, probes=True, init=init)
        gp = gatree(
            sp,
            pop_size=config.llego.pop_size,
            max_evals=res.n_evals,
            max_depth=config.max_depth,
            seed=s,
            init=init,
        )
        ct = cart(sp, max_depth=config.max_depth, trials=config.cart_trials, seed=s)
        c45 = None
        if sp.task == "classification":
            c45 = _ind(
                cart(
                    sp, max_depth=config.max_depth, trials=config.cart_trials, seed=s, criterion="entropy"
                ).best
            )
        gp_rec = {**_ind(gp.best), "n_evals": gp.n_evals, "history": gp.history}
        records.append(SeedRecord(name, s, summary(res), gp_rec, _ind(ct.best), c45))
    info["tokens_generated"] = float(llm.tokens_generated)
    info["prompt_tokens"] = float(llm.prompt_tokens)
    return records, info


@torch_threads(1)  # tiny models: one thread is fastest, and an OpenMP team on a busy machine is 7-30x slower
def run(config: Config, *, seed: int = 0, device: str = "cpu") -> Report:
    seed = check_seed(seed)
    records: list[SeedRecord] = []
    lm_info = {}
    cpu = {}
    for name in config.datasets:
        t0 = time.process_time()
        recs, info = run_dataset(name, config, seed, device)
        cpu[name] = time.process_time() - t0
        records += recs
        lm_info[name] = info
    cl = claims(records, lm_info, config)
    metrics = {
        "records": [r.__dict__ for r in records],
        "lm": lm_info,
        "seeds": list(range(seed, seed + config.n_seeds)),
    }
    c = config.llego
    notes = [
        f"Data: {', '.join(config.datasets)} (scikit-learn), official 36/24/40 split per seed; "
        f"depth d = {config.max_depth}.",
        f"LLEGO: N = {c.pop_size}, G = {c.generations}, N_xo = N_mut = {c.xo}, alpha = {c.alpha}, "
        f"tau = {c.tau}, 4 parents a call; tiny LM ({config.lm.n_layer} layers, d = {config.lm.d_model}, "
        f"{config.lm.steps} steps) trained once per data set on the first seed's D_train, shared by seeds.",
        "GP (GATree-style) starts from LLEGO's initial population and stops at LLEGO's evaluation count; "
        f"CART and the entropy stand-in for C4.5 are tuned with {config.cart_trials} trials on the "
        "validation split.",
        "CPU seconds per data set (tiny LM + all seeds; timings stay out of the metrics so that runs compare "
        "equal): " + ", ".join(f"{k} {v:.1f}" for k, v in cpu.items()) + ".",
    ]
    return Report(metrics=metrics, claims=cl, tables=tables(records, lm_info), notes=notes)
