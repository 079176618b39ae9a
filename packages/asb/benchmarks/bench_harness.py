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
from asb.agent import build_request
from asb.llms import HFBackbone, render_prompt
from asb.toy import build_corpus, build_tokenizer
from paperkit import torch_threads
from paperkit.lm import tiny_causal_lm


def cases(n_agents: int = 4, n_tasks: int = 2, n_attackers: int = 4) -> list[Case]:
    suite = make_toy_suite(0, n_agents=n_agents, n_tasks=n_tasks, n_attackers=n_attackers)
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

    prompts, responses = build_corpus(0, 200)
    tok = build_tokenizer([*prompts, *responses, *(render_prompt(build_request(c).messages) for c in cs)])
    model = tiny_causal_lm(tok, n_layer=2, n_head=4, d_model=64, max_positions=160, seed=0)
    sub = cs[:32]
    batched = HFBackbone(model, tok, max_new_tokens=8)

    def one_by_one(requests):  # type: ignore[no-untyped-def]
        return [batched([r])[0] for r in requests]

    with torch_threads(1):
        run_cases(sub[:4], batched, max_fail=1)
        run_cases(sub[:4], one_by_one, max_fail=1)
        lock, seq = [], []
        for _ in range(2):
            lock.append(cpu(lambda: run_cases(sub, batched, max_fail=2)))
            seq.append(cpu(lambda: run_cases(sub, one_by_one, max_fail=2)))
    print(f"toy LM, {len(sub)} cases: lockstep {min(lock):.2f} CPU-s, "
          f"one request per call {min(seq):.2f} CPU-s, "
          f"ratio {min(seq) / min(lock):.1f}x")  # fmt: skip


if __name__ == "__main__":
    main()
