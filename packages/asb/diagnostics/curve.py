import sys, json, time, re
import numpy as np, torch
from paperkit import torch_threads
from asb.toy import ToyConfig, train_toy_lm, build_corpus
from asb.data import TOOL_POOL
from paperkit.lm import generate
kw = json.loads(sys.argv[1]); seed = int(sys.argv[2]) if len(sys.argv) > 2 else 0
cfg = ToyConfig(**kw)
IMP = re.compile(r'(\w+) the \w+ of \w+ (?:using|by using the|with the|through the|via the|by calling the) (?:" )?(\w+)')
with torch_threads(1):
    t0 = time.process_time()
    model, tok, losses, _ = train_toy_lm(cfg, seed=seed, cache_dir="/tmp/asbp/cache")
    print("train", time.process_time() - t0, flush=True)
    L = np.array(losses)
    print("curve", [round(float(L[i:i+max(1,len(L)//10)].mean()), 3) for i in range(0, len(L), max(1, len(L)//10))])
    p, r = build_corpus(seed, cfg.n_examples + 600, names=TOOL_POOL[:cfg.n_names], unk=cfg.unk); p, r = p[-600:], r[-600:]
    keep = [i for i in range(len(p)) if len(tok(p[i])["input_ids"]) <= 110]
    p, r = [p[i] for i in keep], [r[i] for i in keep]
    out = generate(model, tok, p, max_new_tokens=16)
    kinds = {}
    for pp, rr, oo in zip(p, r, out):
        kind = "step" if "step :" in pp else "plan"
        m = IMP.search(pp)
        sub = "demo" if "example" in pp else ("ref" if "refer" in pp else ("inj-" + ("obey" if m and m.group(2) in rr.split() else "ign") if m else "clean"))
        kinds.setdefault(kind + ":" + sub, []).append(oo.strip() == rr.strip())
    print({k: (round(float(np.mean(v)), 2), len(v)) for k, v in sorted(kinds.items())})
    bad = [(pp[-150:], rr, oo) for pp, rr, oo in zip(p, r, out) if oo.strip() != rr.strip() and "step" in pp][:6]
    for b in bad: print(b)
