"""Quick-scale pilot (RESULTS.md section 7): the toy at a given budget on pilot seeds, every condition
of the run, with the CPU cost of the corpus, the training and the evaluation. No cache.
Usage: p_quick.py STEPS N_EXAMPLES LR BATCH SEEDS [WARMUP [BUCKETS]]"""
import dataclasses, os, sys, time

from paperkit import torch_threads

import numpy as np

import importlib
from asb.reproduce import Config
from asb.reproduce.run import run_seed

runmod = importlib.import_module("asb.reproduce.run")

_seen = {}


def _capture(*a, **k):  # the package's training, its losses kept for the curve
    out = _orig(*a, **k)
    _seen["losses"] = out[2]
    return out


_orig, runmod.train_toy_lm = runmod.train_toy_lm, _capture

BETA2 = os.environ.get("P_BETA2")  # AdamW's beta2 for the toy (paperkit.lm's default is torch's 0.999)
if BETA2:
    import functools
    import torch

    torch.optim.AdamW = functools.partial(torch.optim.AdamW, betas=(0.9, float(BETA2)))

KEYS = ("none", "dpi-combined_attack", "opi-combined_attack", "dpi+opi", "mp", "dpi+opi+mp", "pot", "pot-clean")

if __name__ == "__main__":
    steps, n_ex, lr, batch = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
    seeds = [int(x) for x in sys.argv[5].split(",")]
    warm = int(sys.argv[6]) if len(sys.argv) > 6 else 100
    buckets = int(sys.argv[7]) if len(sys.argv) > 7 else 8
    base = Config()
    shape = {k: int(os.environ[f"P_{k.upper()}"]) for k in ("d_model", "n_layer", "n_head")
             if os.environ.get(f"P_{k.upper()}")}  # P_D_MODEL, P_N_LAYER, P_N_HEAD: another toy shape
    toy = dataclasses.replace(base.toy, **shape, steps=steps, n_examples=n_ex, lr=lr, batch_size=batch, warmup_steps=warm,
                              length_buckets=buckets)
    cfg = dataclasses.replace(base, n_seeds=1, toy=toy, cache=False, workers=1)
    with torch_threads(1):
        for s in seeds:
            t = time.process_time()
            cells, info = run_seed(cfg, s, "cpu")
            by = {(c.attack, c.defense): c for c in cells}
            asr = {k: round(by[(k, "none")].asr, 2) for k in KEYS}
            asr["pna"] = round(by[("none", "none")].success, 2)
            asr["pot-para"] = round(by[("pot", "paraphrase")].asr, 2)
            asr["dpi-delim"] = round(by[("dpi-combined_attack", "delimiters")].asr, 2)
            print(f"{shape} steps {steps} n {n_ex} lr {lr} batch {batch} warm {warm} buckets {buckets} beta2 {BETA2} seed {s} loss {info['final_loss']:.3f} "
                  f"{asr} | {info['cpu']} | total {time.process_time() - t:.1f}", flush=True)
            L = np.array(_seen["losses"])
            k = max(1, len(L) // 10)
            print("  curve (mean loss per tenth):", [round(float(L[i:i + k].mean()), 3) for i in range(0, len(L), k)],
                  "max", round(float(L.max()), 3), flush=True)
