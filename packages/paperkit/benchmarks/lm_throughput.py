"""Tokens per second of paperkit.lm's tiny GPT-2 on one thread: SFT training, sampled generation, PPO steps.

Run: ``python packages/paperkit/benchmarks/lm_throughput.py`` (about a minute). The model is the size the
wave-2 LLM papers use (2 layers, 4 heads, d_model 128, 256 positions) over a word-level vocabulary; rates
are tokens per CPU-second (``time.process_time``, one torch thread) after one warm-up round, so they do not
depend on how busy the machine is as long as the thread gets its core.
"""

from __future__ import annotations

import json
import platform
import time
from typing import Any

import torch
from paperkit.lm import TrainConfig, generate_completions, tiny_causal_lm, train_causal_lm, word_tokenizer
from paperkit.lm.rl import PPOConfig, ValueHeadLM, ppo_step, sample_k

WORDS = [*"abcdefghijklmnopqrstuvwxyz", *"0123456789", "action1", "action2", ":", ",", ".", "?"]


def corpus(n: int, length: int, seed: int) -> list[str]:
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(len(WORDS), (n, length), generator=g).tolist()
    return [" ".join(WORDS[i] for i in row) for row in ids]


def _cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def main() -> None:
    torch.set_num_threads(1)
    tok = word_tokenizer(WORDS)
    model = tiny_causal_lm(tok, n_layer=2, n_head=4, d_model=128, max_positions=256, seed=0)
    prompts, responses = corpus(256, 24, 0), corpus(256, 8, 1)  # rows of 2 + 47 + 15 = 64 tokens
    row_tokens = len(tok(prompts[0])["input_ids"]) + len(tok(responses[0])["input_ids"]) + 2
    out: dict[str, float | int | str] = {"row_tokens": row_tokens, "machine": _cpu_name()}
    for name, batch, steps in [("train_b32", 32, 20)]:
        cfg = TrainConfig(steps=2, batch_size=batch, lr=1e-4)
        train_causal_lm(model, tok, prompts, responses, cfg, max_length=128, progress=False)  # warm-up
        cfg = TrainConfig(steps=steps, batch_size=batch, lr=1e-4)
        t = time.process_time()
        train_causal_lm(model, tok, prompts, responses, cfg, max_length=128, progress=False)
        out[f"{name}_tokens_per_cpu_s"] = round(steps * batch * row_tokens / (time.process_time() - t))
    for name, batch, new in [("generate_b32", 32, 16), ("generate_b1", 1, 16)]:
        ps = prompts[:batch]
        generate_completions(model, tok, ps, max_new_tokens=4, temperature=1.0, seed=0)  # warm-up
        t = time.process_time()
        made = 0
        for r in range(3):
            done = generate_completions(model, tok, ps, max_new_tokens=new, temperature=1.0, seed=r)
            made += sum(c.completion_tokens for c in done)  # rows that stopped early count what they made
        out[f"{name}_new_tokens_per_cpu_s"] = round(made / (time.process_time() - t))
    out.update(ppo_seconds(tok, model, prompts))
    print(json.dumps(out, indent=1))


def ppo_seconds(tok: Any, model: Any, prompts: list[str]) -> dict[str, float]:
    """CPU-seconds of one PPO step (sample 2 tokens a row, PPOConfig()'s 4 epochs) on 47-token prompts."""
    reference = tiny_causal_lm(tok, n_layer=2, n_head=4, d_model=128, max_positions=256, seed=0)
    policy = ValueHeadLM(model)
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-5)
    out = {}
    for rows in (5, 20):
        for step in range(4):  # the first is a warm-up
            if step == 1:
                t = time.process_time()
            ro = sample_k(model, tok, prompts[:rows], 1, max_new_tokens=2, seed=step)
            scores = torch.tensor([float("action1" in x) for x in ro.texts])
            ppo_step(policy, reference, ro, scores, optimizer, PPOConfig())
        out[f"ppo_step_{rows}_rows_cpu_s"] = round((time.process_time() - t) / 3, 3)
    return out


if __name__ == "__main__":
    main()
