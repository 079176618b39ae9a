import sys, json, importlib
from paperkit import torch_threads
from asb.reproduce.config import Config
R = importlib.import_module("asb.reproduce.run")
from asb.agent import run_cases, CaseEpisode
from asb.llms import HFBackbone, render_prompt
from asb.toy import train_toy_lm, ToyConfig
from asb.data import make_toy_suite, TOOL_POOL
seed = int(sys.argv[3]); kw = json.loads(sys.argv[1]); conds = sys.argv[2].split(",")
cfg = Config(toy=ToyConfig(**kw))
with torch_threads(1):
    suite = make_toy_suite(seed, n_agents=cfg.n_agents, n_tasks=cfg.n_tasks, n_attackers=cfg.n_attackers, names=TOOL_POOL[:cfg.toy.n_names])
    mem = R.poisoned_memory(suite, cfg.n_tasks)
    model, tok, losses, _ = train_toy_lm(cfg.toy, seed=seed, cache_dir=str(__import__("paperkit.lm", fromlist=["x"]).default_cache_dir()))
    bb = HFBackbone(model, tok, max_new_tokens=16)
    seen = []
    orig = bb.__call__
    def spy(reqs):
        out = orig(reqs)
        seen.extend(zip(reqs, out))
        return out
    for cond in conds:
        a, d = cond.split("/")
        cs = R.cases_for(suite, a, d, cfg.n_tasks, mem)[:3]
        seen.clear()
        run_cases(cs, spy, max_fail=2)
        print("=====", cond)
        for r, o in [x for x in seen if x[0].history][:4]:
            p = render_prompt(r.messages)
            print(" ".join(tok.convert_ids_to_tokens(tok(p)["input_ids"]))[-400:], "=>", o.text or [c.name for c in o.calls], o.error)
