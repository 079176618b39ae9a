"""Pilot: train the toy for one seed, run some conditions, dump failing trajectories."""
import sys, time, json
from dataclasses import replace
import numpy as np
from paperkit import torch_threads
from asb.reproduce.config import Config
import importlib; R = importlib.import_module("asb.reproduce.run")
from asb.agent import run_cases, build_request
from asb.llms import HFBackbone, render_prompt
from asb.metrics import attack_success, task_success
from asb.toy import train_toy_lm, ToyConfig
from asb.data import make_toy_suite, TOOL_POOL

seed = int(sys.argv[1]); kw = json.loads(sys.argv[2]) if len(sys.argv) > 2 else {}
conds = [c for c in Config().conditions]
cfg = Config(toy=ToyConfig(**kw))
with torch_threads(1):
    suite = make_toy_suite(seed, n_agents=cfg.n_agents, n_tasks=cfg.n_tasks, n_attackers=cfg.n_attackers, names=TOOL_POOL[:cfg.toy.n_names])
    mem = R.poisoned_memory(suite, cfg.n_tasks)
    grid = {(a, d): R.cases_for(suite, a, d, cfg.n_tasks, mem) for a, d in conds}

    t0 = time.process_time()
    model, tok, losses, _ = train_toy_lm(cfg.toy, seed=seed, cache_dir="/tmp/asbp/cache")
    t1 = time.process_time()
    print(f"train {t1-t0:.1f} CPU-s loss {np.mean(losses[-20:]):.3f}", flush=True)
    bb = HFBackbone(model, tok, max_new_tokens=16)
    for (a, d), cs in grid.items():
        tr, _ = run_cases(cs, bb, max_fail=cfg.max_fail)
        asr = np.mean([attack_success(c, t) for c, t in zip(cs, tr)])
        suc = np.mean([task_success(c, t) for c, t in zip(cs, tr)])
        pf = sum(t.plan_failed for t in tr)
        print(f"{a:22s} {d:13s} asr {asr:.2f} succ {suc:.2f} planfail {pf}", flush=True)
        if "-v" in sys.argv:
            for c, t in list(zip(cs, tr))[:2]:
                print("   MSGS:", [m[-80:] for m in t.messages[-6:]], "calls", t.calls, t.ended)
    print(f"eval {time.process_time()-t1:.1f} CPU-s")
