"""run(config, *, seed, device) -> Report: per seed, train the toy backbone, run every condition."""

from __future__ import annotations

import multiprocessing
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
from paperkit import Report, torch_threads
from paperkit.embed import CachedEmbedder, HashingEmbedder
from paperkit.lm import default_cache_dir

from asb.agent import Case, run_cases
from asb.attacks import ATTACKS
from asb.data import TOOL_POOL, Suite, make_toy_suite
from asb.defenses import DefenseConfig
from asb.llms import AlwaysObeyLLM, HFBackbone, NeverDeviateLLM
from asb.memory import VectorMemory, memory_key
from asb.metrics import attack_success, rate, task_success, tool_called
from asb.reproduce.config import Config
from asb.toy import train_toy_lm

__all__ = ["Cell", "cases_for", "run", "run_seed"]


@dataclass(frozen=True)
class Cell:
    """One (seed, attack, defense) cell's rates over its cases."""

    seed: int
    attack: str
    defense: str
    asr: float
    asr_tool: float
    success: float
    plan_failures: int
    n: int


def cases_for(
    suite: Suite, attack: str, defense: str, n_tasks: int, memory: VectorMemory | None
) -> list[Case]:
    """agents x tasks x attacker tools cases (ASB's N), with the MP reference retrieved top-1."""
    out = [
        Case(a, t, z, ATTACKS[attack], DefenseConfig(defense))
        for a in suite.agents
        for t in a.tasks[:n_tasks]
        for z in suite.attackers_of(a.name)
    ]
    if ATTACKS[attack].memory and memory is not None:
        docs = memory.query([memory_key(c) for c in out], k=1)
        out = [
            Case(**{**c.__dict__, "reference": d[0].workflow if d else None})
            for c, d in zip(out, docs, strict=True)
        ]
    return out


def poisoned_memory(suite: Suite, n_tasks: int) -> VectorMemory:
    """ASB's memory: DPI (combined) runs written back; the official DB was built with gpt-4o-mini, here
    with :class:`AlwaysObeyLLM`, so every stored plan uses its case's attacker tool."""
    memory = VectorMemory(CachedEmbedder(HashingEmbedder(512)))
    cases = cases_for(suite, "dpi-combined_attack", "none", n_tasks, None)
    trajectories, _ = run_cases(cases, AlwaysObeyLLM())
    memory.add_runs(cases, trajectories)
    return memory


def _cell(seed: int, attack: str, defense: str, cases: list[Case], backbone: object, max_fail: int) -> Cell:
    trajectories, _ = run_cases(cases, backbone, max_fail=max_fail)  # type: ignore[arg-type]
    return Cell(
        seed, attack, defense,
        asr=rate([attack_success(c, t) for c, t in zip(cases, trajectories, strict=True)]),
        asr_tool=rate([tool_called(c, t) for c, t in zip(cases, trajectories, strict=True)]),
        success=rate([task_success(c, t) for c, t in zip(cases, trajectories, strict=True)]),
        plan_failures=sum(t.plan_failed for t in trajectories), n=len(cases),
    )  # fmt: skip


def run_seed(config: Config, seed: int, device: str) -> tuple[list[Cell], dict[str, Any]]:
    """All conditions for one seed: the toy backbone and the two bracketing agents on the same cases."""
    suite = make_toy_suite(
        seed, n_agents=config.n_agents, n_tasks=config.n_tasks, n_attackers=config.n_attackers,
        names=TOOL_POOL[: config.toy.n_names],
    )  # fmt: skip
    memory = poisoned_memory(suite, config.n_tasks)
    grid = {(a, d): cases_for(suite, a, d, config.n_tasks, memory) for a, d in config.conditions}
    t0 = time.process_time()
    cache = str(default_cache_dir()) if config.cache else None
    model, tok, losses, hit = train_toy_lm(config.toy, seed=seed, device=device, cache_dir=cache)
    t1 = time.process_time()
    backbone = HFBackbone(model, tok, max_new_tokens=config.max_new_tokens, device=device)
    cells = [_cell(seed, a, d, cs, backbone, config.max_fail) for (a, d), cs in grid.items()]
    t2 = time.process_time()
    for name, bb in (("always-obey", AlwaysObeyLLM()), ("never-deviate", NeverDeviateLLM())):
        cells += [
            _cell(seed, f"{a}@{name}", d, cs, bb, config.max_fail)
            for (a, d), cs in grid.items()
            if d == "none"
        ]
    info: dict[str, Any] = {
        "final_loss": float(np.mean(losses[-20:])),
        "backbone_calls": backbone.calls,
        "prompt_tokens_per_call": backbone.prompt_tokens / max(1, backbone.calls),
    }  # fmt: skip
    # CPU times go to the notes, not the metrics: same seed => same metrics, bit for bit
    info["cpu"] = (
        f"seed {seed}: backbone {t1 - t0:.1f} CPU-s ({'cached' if hit else 'trained'}), "
        f"evaluation {t2 - t1:.1f} CPU-s"
    )
    return cells, info


def _seed_job(job: tuple[Config, int, str]) -> tuple[list[Cell], dict[str, Any]]:
    config, seed, device = job
    with torch_threads(1):
        return run_seed(config, seed, device)


def _all_seeds(config: Config, seed: int, device: str) -> list[tuple[list[Cell], dict[str, Any]]]:
    """One seed after another, or ``config.workers`` processes (one torch thread each) on CPU; every seed
    is computed the same way in either case, so the results do not depend on the number of workers.
    Workers may outnumber the cores: three seeds on two cores then end together, instead of the third
    training alone after the first two."""
    jobs = [(config, seed + i, device) for i in range(config.n_seeds)]
    workers = min(config.workers, config.n_seeds)
    if workers <= 1 or device != "cpu":
        return [_seed_job(j) for j in jobs]
    # fork on Linux: the workers inherit the imported torch and transformers (~12 CPU-s a process here)
    # instead of importing them again. A worker runs torch on one thread (no OpenMP team of the parent's
    # is entered) and the tokenizers library drops to one thread in a forked child, so thread pools the
    # caller used before are not a hazard. Elsewhere (macOS: fork is unsafe there) a fresh interpreter.
    method = "fork" if sys.platform.startswith("linux") else "spawn"
    context = multiprocessing.get_context(method)
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        return list(pool.map(_seed_job, jobs))


def run(config: Config, *, seed: int = 0, device: str = "cpu") -> Report:
    """Seeds ``seed .. seed + n_seeds - 1``; each seed its own suite, corpus and backbone init."""
    from asb.reproduce.claims import claims
    from asb.reproduce.tables import tables

    per_seed = _all_seeds(config, seed, device)
    cells = [c for cs, _ in per_seed for c in cs]
    info = [{k: v for k, v in i.items() if k != "cpu"} for _, i in per_seed]
    cpu = [str(i["cpu"]) for _, i in per_seed]
    return Report(
        metrics={"cells": cells, "seeds": info, "config": config},
        claims=claims(cells, config),
        tables=tables(cells),
        notes=[
            "Toy backbone: a word-level tiny GPT-2 trained in process (asb.toy); rates are over agents x "
            "tasks x attacker tools cases per seed; memory retrieval with hashing embeddings.",
            *cpu,
        ],
    )
