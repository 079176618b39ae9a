"""Pilot: the full-budget tuning stage alone (dev split only; no test data)."""
import json, sys, time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from arat.reproduce import Config
from arat.reproduce.run import dev_score, choose_lr

def job(a):
    t = time.process_time()
    r = dev_score(*a)
    r["cpu"] = time.process_time() - t
    return r

if __name__ == "__main__":
    cfg = Config()
    grid = [float(x) for x in sys.argv[1].split(",")] if len(sys.argv) > 1 else list(cfg.lr_grid)
    methods = sys.argv[2].split(",") if len(sys.argv) > 2 else list(cfg.methods)
    cells = [(cfg, m, lr, "cpu", None) for m in methods for lr in grid]
    with ProcessPoolExecutor(2, mp_context=get_context("spawn")) as pool:
        rows = []
        for r in pool.map(job, cells):
            print(json.dumps(r), flush=True)
            rows.append(r)
    print("chosen", choose_lr(rows), flush=True)
