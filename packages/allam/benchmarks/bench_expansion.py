"""Our expansion vs the named peers, after warm-up, interleaved repetitions, process CPU time, one run.

1. Tokenizer: ``expand_tokenizer(A-BPE, B-BPE)`` against the ``tokenizers`` library's own BPE trainer run
   on the joint A+B corpus with the same total vocabulary (what one would do without expansion). Prints
   B fertility of each, whether A's ids are preserved (the peer changes them), and the CPU-time ratio.
2. Embeddings: our ``resize_and_init`` (mean_subword, mean_all) against ``transformers``'
   ``resize_token_embeddings(mean_resizing=True)`` (new rows drawn around the old mean): CPU-time ratios,
   and the distance of each new-row mean to the old mean.

    uv run --package iclr25-allam python packages/allam/benchmarks/bench_expansion.py
"""

from __future__ import annotations

import copy
import time

import torch
from allam.data import WorldConfig
from allam.embeddings import resize_and_init
from allam.methods import make_substrate
from allam.tokenizer import expand_tokenizer, fertility, train_bpe
from paperkit.lm import tiny_causal_lm

REPS = 5


def cpu(fn):
    t = time.process_time()
    fn()
    return time.process_time() - t


def main() -> None:
    torch.set_num_threads(1)
    sub = make_substrate(WorldConfig(n_entities=60), seed=0)
    a, b = sub.texts["a_train"], sub.texts["b_train"]
    size = len(sub.expansion.tokenizer)
    ours = lambda: expand_tokenizer(train_bpe(a, 512), train_bpe(b, 512))  # noqa: E731
    peer = lambda: train_bpe(a + b, size)  # noqa: E731
    ours(), peer()  # warm-up
    t_ours = t_peer = 0.0
    for _ in range(REPS):
        t_ours += cpu(ours)
        t_peer += cpu(peer)
    joint = peer()
    same_a = joint(a[:200])["input_ids"] == sub.tok_a(a[:200])["input_ids"]
    print(
        f"vocabulary {size}: fertility of B text  A-only BPE {fertility(sub.tok_a, b):.2f}  "
        f"expanded {fertility(sub.expansion.tokenizer, b):.2f}  joint peer BPE {fertility(joint, b):.2f}"
    )
    print(f"A ids preserved: expanded True (tests), joint peer {same_a}")
    print(
        f"CPU time: train A + B BPEs and expand {t_ours / REPS * 1e3:.1f} ms, joint peer BPE "
        f"{t_peer / REPS * 1e3:.1f} ms, ratio ours/peer {t_ours / t_peer:.2f}"
    )
    base = tiny_causal_lm(sub.tok_a, n_layer=3, n_head=4, d_model=96, max_positions=64, seed=0)
    old_mean = base.get_input_embeddings().weight.detach().mean(0)
    ex, n_old = sub.expansion, len(sub.tok_a)
    calls = {
        "ours mean_subword": lambda m: resize_and_init(m, sub.tok_a, ex.tokenizer, ex.new_ids),
        "ours mean_all": lambda m: resize_and_init(m, sub.tok_a, ex.tokenizer, ex.new_ids, method="mean_all"),
        "transformers mean_resizing": lambda m: m.resize_token_embeddings(size, mean_resizing=True),
    }
    times = dict.fromkeys(calls, 0.0)
    models = {}
    for fn in calls.values():
        fn(copy.deepcopy(base))  # warm-up
    for _ in range(REPS):
        for name, fn in calls.items():
            m = copy.deepcopy(base)
            times[name] += cpu(lambda fn=fn, m=m: fn(m))
            models[name] = m
    ref = times["transformers mean_resizing"]
    for name, t in times.items():
        rows = models[name].get_input_embeddings().weight.detach()[n_old:]
        gap = float((rows.mean(0) - old_mean).norm())
        print(
            f"{name:28s} {t / REPS * 1e3:7.2f} ms  ratio to transformers {t / ref:5.2f}  "
            f"|mean(new rows) - mean(old rows)| = {gap:.4f}"
        )


if __name__ == "__main__":
    main()
