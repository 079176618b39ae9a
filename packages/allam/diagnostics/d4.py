import dataclasses, time, json
from paperkit import torch_threads
from allam.reproduce import Config
from allam.reproduce.run import base_model
from allam.methods import make_substrate, adapt
from allam.metrics import qa_scores
from allam.data import qa_probes
cfg = Config(); t0 = time.process_time(); out = {}
def brank(m, tok, sub):
    return float(qa_scores(m, tok, qa_probes(sub.world.of("AB", "B"), "B", sub.world))["rank_score"].mean())
with torch_threads(1):
    for s in (1000, 0, 1, 2):
        sub = make_substrate(cfg.world, seed=s, vocab_a=cfg.vocab, vocab_b=cfg.vocab)
        base, _ = base_model(sub, cfg, s, "cpu")
        for lr in (1.6e-2, 3.2e-2):
            try:
                m, tok, _ = adapt("orig_tok", base, sub, dataclasses.replace(cfg.cpt, lr=lr), seq_len=128, seed=s)
                out[f"{s}/{lr}"] = brank(m, tok, sub)
            except FloatingPointError as e:
                out[f"{s}/{lr}"] = str(e)
            print(s, lr, out[f"{s}/{lr}"], flush=True)
print("CPU", time.process_time() - t0)
json.dump(out, open("/tmp/h36/d4.json", "w"))
