"""CPU cost of the tiny-LM PPO loop vs the tabular memory-1 REINFORCE peer, in one run, after warm-up.

Prints episodes per CPU-second of each (interleaved repetitions), the LM loop's split between sampling
(forward passes that pick the answers) and the PPO update, and the model's parameter memory.
Usage: ``python benchmarks/bench_ppo_vs_tabular.py [--episodes 20] [--repeats 3]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch
from moral_rewards import ppo
from moral_rewards.ppo import train_ppo
from moral_rewards.tabular import train_tabular
from moral_rewards.tiny import PretrainConfig, build_tiny_lm, build_tokenizer, pretrain
from paperkit.lm import ValueHeadLM


def _timed(fn, *args, **kw):
    t0 = time.process_time()
    out = fn(*args, **kw)
    return out, time.process_time() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--episodes", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    torch.set_num_threads(1)
    tok = build_tokenizer()
    model = build_tiny_lm(tok, seed=0)
    pretrain(model, tok, PretrainConfig(n_prompts=256, steps=5, warmup_steps=0), seed=0)
    base = {k: v.clone() for k, v in model.state_dict().items()}
    sample_time = [0.0]
    original = ppo.sample_k

    def counted(*a, **kw):
        out, dt = _timed(original, *a, **kw)
        sample_time[0] += dt
        return out

    ppo.sample_k = counted  # measure the sampling share of the loop
    train_ppo(ValueHeadLM(model), tok, (("game", 3),), seed=0)  # warm-up
    train_tabular((("game", 30),), seed=0)
    lm, tab, share = [], [], []
    for r in range(args.repeats):
        model.load_state_dict(base)
        sample_time[0] = 0.0
        _, dt = _timed(train_ppo, ValueHeadLM(model), tok, (("game", args.episodes),), seed=r)
        lm.append(args.episodes / dt)
        share.append(sample_time[0] / dt)
        _, dt = _timed(train_tabular, (("game", 10 * args.episodes),), seed=r)
        tab.append(10 * args.episodes / dt)
    ppo.sample_k = original
    mb = sum(p.numel() * p.element_size() for p in model.parameters()) / 2**20
    print(f"tiny-LM PPO: {np.median(lm):.2f} episodes/CPU-s (5 rounds each); sampling {np.median(share):.0%}")
    print(f"tabular REINFORCE: {np.median(tab):.0f} episodes/CPU-s")
    print(f"ratio tabular / LM: {np.median(tab) / np.median(lm):.0f}x; LM parameters {mb:.1f} MiB")


if __name__ == "__main__":
    main()
