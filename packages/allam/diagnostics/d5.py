"""D5 (RESULTS.md section 17), after run 7 on its cached bases (seeds 0-2): (a) replay-no-forgetting's
held-out A probe against A training text; (b) the init claim at equal lr for both inits."""
import dataclasses, json, time
from paperkit import torch_threads
from allam.reproduce import Config
from allam.reproduce.run import base_model
from allam.methods import make_substrate, adapt
from allam.metrics import bits_per_byte
from allam.data import corpus

cfg = Config()
out = {}
t0 = time.process_time()
with torch_threads(1):
    for s in (0, 1, 2):
        sub = make_substrate(cfg.world, seed=s, vocab_a=cfg.vocab, vocab_b=cfg.vocab)
        base, _ = base_model(sub, cfg, s, "cpu")
        a_fit = sub.texts["a_train"][:: max(1, len(sub.texts["a_train"]) // 40)]
        a_t0 = corpus(sub.world.of("A", "AB"), "A", (0,))
        texts = {"a_heldout_t5": sub.texts["a_eval"], "a_train_sample": a_fit, "a_template0": a_t0}
        before = {k: bits_per_byte(base, sub.tok_a, t) for k, t in texts.items()}
        m, tok, _ = adapt("expand_mean", base, sub, dataclasses.replace(cfg.cpt, lr=1.6e-2), seq_len=128, seed=s)
        after = {k: bits_per_byte(m, tok, t) for k, t in texts.items()}
        out[f"{s}/replay_ratio"] = {k: round(after[k] / before[k], 3) for k in texts} | {
            f"{k}_before": round(before[k], 3) for k in texts}
        print(s, "A bpb after/before (expand_mean, 1.6e-2):", out[f"{s}/replay_ratio"], flush=True)
        for lr in (8e-3, 1.6e-2):
            at40 = {}
            for v in ("expand_mean", "expand_random"):
                curve = []
                hook = lambda mm, tt, step, c=curve: c.append((step, bits_per_byte(mm, tt, sub.texts["b_eval"]), bits_per_byte(mm, tt, sub.texts["b_train"][::20])))
                adapt(v, base, sub, dataclasses.replace(cfg.cpt, lr=lr), seq_len=128, seed=s, callback=hook, every=20)
                at40[v] = [(st, round(a, 3), round(b, 3)) for st, a, b in curve if st in (20, 40, 80, 240)]
            out[f"{s}/init/{lr}"] = at40
            print(s, "init at lr", lr, at40, flush=True)
print("CPU", round(time.process_time() - t0, 1))
json.dump(out, open("/tmp/h36b/d5.json", "w"))
