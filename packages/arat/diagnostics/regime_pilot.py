"""Regime pilot for gate-at-costs-accuracy (issue 33): fresh seeds (not the judged 0-4), full training split,
full test set, the full run's evaluation at the pilot's eps. Each arg: {"m": method, "eps": .., "w": warm-up
epochs, "a": background noise, "lr": ..}."""
import json, sys, time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from multiprocessing import get_context
import torch
from arat.reproduce import Config
from arat.reproduce.run import data_splits, _train_config
from arat.methods import fit
from arat.evaluate import robust_accuracy, accuracy
from arat.layers import has_split_bn

def cell(spec):
    torch.set_num_threads(1)
    seed, c = spec
    cfg = Config(background=c.get("a", 0.0))
    cfg = replace(cfg, eval=replace(cfg.eval, eps=c["eps"]), train=replace(cfg.train, eps_warmup=c.get("w", 0)))
    xtr, ytr, xte, yte = data_splits(cfg, "cpu")
    t = time.process_time()
    tr = fit(c["m"], xtr, ytr, channels=cfg.channels, base=_train_config(cfg), seed=seed, lr=c.get("lr", 0.1))
    r = robust_accuracy(tr.model, xte, yte, cfg.eval, seed=seed + 101)
    cb = accuracy(tr.model, xte, yte, branch="clean") if has_split_bn(tr.model) else None
    return {"seed": seed, **c, **{k: round(v, 4) for k, v in r.items()}, "clean_branch": cb,
            "final_loss": round(float(tr.loss[-1]), 3), "cpu": round(time.process_time() - t, 1)}

if __name__ == "__main__":
    seeds = [int(s) for s in sys.argv[1].split(",")]
    specs = [(s, json.loads(a)) for a in sys.argv[2:] for s in seeds]
    with ProcessPoolExecutor(2, mp_context=get_context("spawn")) as pool:
        for r in pool.map(cell, specs):
            print(json.dumps(r), flush=True)
