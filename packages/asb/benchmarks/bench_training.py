"""The toy backbone's training step: paperkit.lm's lean GPT-2 path against Hugging Face's forward.

Peer: ``transformers.GPT2LMHeadModel`` called as paperkit.lm's ``forward="hf"`` does (padding mask,
logits at every position, ``gelu_new``, single-tensor AdamW), which trained the backbones of RESULTS.md
sections 1-7. Ours: ``forward="lean"`` (:mod:`paperkit.lm.lean` and fused AdamW), which trains them now.
Same toy config, corpus, init and batches; one torch thread; process CPU time per step after a warm-up,
the two paths interleaved in blocks, in one run. Also the corpus preparation (build, tokenise, encode) of
one backbone, which both paths share.

Run: ``uv run --package iclr25-asb python packages/asb/benchmarks/bench_training.py``.
"""

from __future__ import annotations

import copy
import time

import torch
from asb.data import TOOL_POOL
from asb.toy import VOCAB_EXAMPLES, ToyConfig, build_corpus, build_tokenizer
from paperkit import torch_threads
from paperkit.lm import TrainConfig, encode_prompt_response, tiny_causal_lm, train_causal_lm

STEPS, BLOCKS, WARM = 80, 5, 20


def main() -> None:
    cfg = ToyConfig()
    names = TOOL_POOL[: cfg.n_names]
    t = time.process_time()
    head = build_corpus(0, VOCAB_EXAMPLES, names=names, unk=cfg.unk)
    tok = build_tokenizer([*head[0], *head[1]])
    prompts, responses = build_corpus(0, cfg.n_examples, names=names, unk=cfg.unk)
    built = time.process_time()
    encode_prompt_response(tok, prompts, responses, max_length=cfg.max_positions, drop_long=True)
    encoded = time.process_time()
    print(f"corpus of {cfg.n_examples} examples: build {built - t:.1f} CPU-s,", end=" ")
    print(f"tokenise + encode {encoded - built:.1f} CPU-s")

    base = tiny_causal_lm(
        tok,
        n_layer=cfg.n_layer,
        n_head=cfg.n_head,
        d_model=cfg.d_model,
        max_positions=cfg.max_positions,
        seed=0,
    )
    sub = (prompts[:2000], responses[:2000])

    def cost(forward: str, steps: int, seed: int) -> float:
        tc = TrainConfig(
            steps=steps, batch_size=cfg.batch_size, lr=cfg.lr, seed=seed, length_buckets=cfg.length_buckets
        )
        model = copy.deepcopy(base)
        t0 = time.process_time()
        train_causal_lm(model, tok, *sub, tc, max_length=cfg.max_positions, progress=False, forward=forward)
        return time.process_time() - t0

    for forward in ("hf", "lean"):  # warm-up: first calls, allocator, kernels
        cost(forward, WARM, 0)
    per_step: dict[str, list[float]] = {"hf": [], "lean": []}
    for block in range(BLOCKS):
        for forward in ("hf", "lean") if block % 2 == 0 else ("lean", "hf"):
            # a 1-step run holds the same encoding and set-up, so the difference is STEPS - 1 steps
            per_step[forward].append((cost(forward, STEPS, block) - cost(forward, 1, block)) / (STEPS - 1))
    hf, lean = (sorted(per_step[k])[BLOCKS // 2] for k in ("hf", "lean"))
    shape = f"batch {cfg.batch_size}, d {cfg.d_model} x {cfg.n_layer}"
    print(f"train step ({shape}), median of {BLOCKS} blocks of {STEPS} steps:")
    print(f"  hf   {hf * 1e3:.1f} ms   lean {lean * 1e3:.1f} ms   ratio hf / lean {hf / lean:.2f}x")
    print(f"  per backbone ({cfg.steps} steps): hf {hf * cfg.steps:.0f}, lean {lean * cfg.steps:.0f} CPU-s")


if __name__ == "__main__":
    with torch_threads(1):
        torch.manual_seed(0)
        main()
