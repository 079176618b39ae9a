"""Pilot P7 (RESULTS.md section 16): expand_mean's B-stated QA after CPT at lr 1.6e-2 / 3.2e-2 on the
pilot seeds 100-102 and the dev world 1000 (cached 12-entity bases), with A QA kept and the cost per cell."""
import dataclasses, json, sys, time
from paperkit import torch_threads
from allam.reproduce import Config
from allam.reproduce.run import base_model, evaluate
from allam.methods import make_substrate, adapt

import os
cfg = Config()
if os.environ.get("P7_OLD"):  # run 6's substrate: 12 entities, bases 1500 steps at 3e-3
    from allam.data import WorldConfig
    cfg = dataclasses.replace(cfg, world=WorldConfig(n_entities=12), pretrain_steps=1500, pretrain_lr=3e-3)
lrs = [float(x) for x in sys.argv[1].split(",")]
variants = sys.argv[2].split(",")
seeds = [int(x) for x in sys.argv[3].split(",")]
steps = int(sys.argv[4]) if len(sys.argv) > 4 else cfg.cpt.steps
out = {}
with torch_threads(1):
    for s in seeds:
        sub = make_substrate(cfg.world, seed=s, vocab_a=cfg.vocab, vocab_b=cfg.vocab)
        base, _ = base_model(sub, cfg, s, "cpu")
        for v in variants:
            for lr in lrs:
                t = time.process_time()
                try:
                    m, tok, _ = adapt(v, base, sub, dataclasses.replace(cfg.cpt, lr=lr, steps=steps), seq_len=128, seed=s)
                    t1 = time.process_time() - t
                    ev = evaluate(m, tok, sub, "cpu")
                except FloatingPointError as e:
                    ev, t1 = {"error": str(e)}, 0.0
                ev = {k: round(x, 3) for k, x in ev.items() if not isinstance(x, str)} | {"cpt_s": round(t1, 1), "eval_s": round(time.process_time() - t - t1, 1)}
                out[f"{s}/{v}/{lr}/{steps}"] = ev
                print(s, v, lr, steps, {k: ev.get(k) for k in ("qa_b_stated_em", "qa_b_stated_rank", "qa_a_em", "qa_b_aonly_rank", "a_bpb", "cpt_s", "eval_s")}, flush=True)
json.dump(out, open(f"/tmp/h36b/p7_{sys.argv[1]}_{sys.argv[2]}_{steps}.json", "w"))
