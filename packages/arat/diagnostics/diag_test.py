"""Diagnostic runs on fresh seeds (not the judged 0-4), full training split, full test set, full-run eval."""
import json, sys, time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
import torch
from arat.reproduce import Config
from arat.reproduce.run import data_splits, _train_config
from arat.methods import fit
from arat.evaluate import robust_accuracy, accuracy
from arat.layers import has_split_bn

def cell(spec):
    torch.set_num_threads(1)
    name, seed, over = spec
    cfg = Config()
    xtr, ytr, xte, yte = data_splits(cfg, "cpu")
    t = time.process_time()
    tr = fit(name, xtr, ytr, channels=cfg.channels, base=_train_config(cfg), seed=seed, lr=0.1, **over)
    r = robust_accuracy(tr.model, xte, yte, cfg.eval, seed=seed + 101)
    cb = accuracy(tr.model, xte, yte, branch="clean") if has_split_bn(tr.model) else None
    return {"method": name, "seed": seed, **over, **{k: round(v, 4) for k, v in r.items()},
            "clean_branch": cb, "final_loss": float(tr.loss[-1]), "cpu": round(time.process_time() - t, 1)}

if __name__ == "__main__":
    configs = [json.loads(a) for a in sys.argv[2:]]
    seeds = [int(s) for s in sys.argv[1].split(",")]
    specs = [(c["m"], s, c.get("o", {})) for c in configs for s in seeds]
    with ProcessPoolExecutor(2, mp_context=get_context("spawn")) as pool:
        for r in pool.map(cell, specs):
            print(json.dumps(r), flush=True)
