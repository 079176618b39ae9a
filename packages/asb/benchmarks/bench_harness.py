"""Harness cost against the official ASB pattern (one backbone request per call), after warm-up.

1. Harness overhead per case with a scripted backbone (no model time): the spec's target is < 5 ms.
2. The toy LM served in lockstep batches (ours: every live case's request in one ``generate`` call) versus
   one request per call (how the official harness drives its LLM: a FIFO scheduler hands each agent's
   request to the model in turn). Same model, same cases, same greedy tokens; process CPU time,
   interleaved repetitions, in one run. The official AIOS stack itself is not runnable offline (it needs
   its scheduler and an API backbone), so its per-call pattern is what is compared.

Run: ``uv run --package iclr25-asb python packages/asb/benchmarks/bench_harness.py``.
"""

from __future__ import annotations

import time

from asb import ATTACKS, Case, NeverDeviateLLM, make_toy_suite, run_cases
from asb.data import TOOL_POOL
from asb.llms import HFBackbone
from asb.toy import ToyConfig, train_toy_lm
from paperkit import torch_threads
from paperkit.lm import default_cache_dir


def cases(n_agents: int = 4, n_tasks: int = 2, n_attackers: int = 4) -> list[Case]:
    names = TOOL_POOL[: ToyConfig().n_names]
    suite = make_toy_suite(0, n_agents=n_agents, n_tasks=n_tasks, n_attackers=n_attackers, names=names)
    return [
        Case(a, t, z, ATTACKS[name]) for name in ("dpi-combined_attack", "opi-naive", "pot", "none")
        for a in suite.agents for t in a.tasks for z in suite.attackers_of(a.name)
    ]  # fmt: skip


def cpu(fn) -> float:  # type: ignore[no-untyped-def]
    t = time.process_time()
    fn()
    return time.process_time() - t


def main() -> None:
    cs = cases()
    scripted = NeverDeviateLLM()
    run_cases(cs, scripted)  # warm-up
    per_case = min(cpu(lambda: run_cases(cs, scripted)) for _ in range(5)) / len(cs)
    print(f"harness overhead, scripted backbone: {1e3 * per_case:.3f} ms per case ({len(cs)} cases)")

    with torch_threads(1):  # the trained toy backbone of asb reproduce, seed 0 (from the model cache)
        model, tok, _, _ = train_toy_lm(ToyConfig(), seed=0, cache_dir=str(default_cache_dir()))
    sub = cs[::4]
    batched = HFBackbone(model, tok, max_new_tokens=16)

    def one_by_one(requests):  # type: ignore[no-untyped-def]
        return [batched([r])[0] for r in requests]

    with torch_threads(1):
        run_cases(sub[:4], batched, max_fail=1)
        run_cases(sub[:4], one_by_one, max_fail=1)
        lock, seq = [], []
        for _ in range(3):
            lock.append(cpu(lambda: run_cases(sub, batched, max_fail=2)))
            seq.append(cpu(lambda: run_cases(sub, one_by_one, max_fail=2)))
    print(f"toy LM, {len(sub)} cases: lockstep {min(lock):.2f} CPU-s, "
          f"one request per call {min(seq):.2f} CPU-s, "
          f"ratio {min(seq) / min(lock):.1f}x")  # fmt: skip


if __name__ == "__main__":
    main()
