"""Diagnostics on pilot seeds (cached bases): D1 longer CPT (is B knowledge / transfer learnable?),
D2 what the held-out B text measures, D3 what SFT learns about answers."""
import dataclasses, json, sys, time
import numpy as np
from paperkit import torch_threads
from allam.reproduce import Config
from allam.reproduce.run import base_model, question_qa
from allam.methods import make_substrate, adapt
from allam.metrics import qa_scores, bits_per_byte, text_logprobs
from allam.data import qa_probes, translation_probes, corpus
from allam.align import split_facts, align, align_probes
cfg = Config()
out = {}
t0 = time.process_time()
with torch_threads(1):
    for s in (100, 101, 102):
        sub = make_substrate(cfg.world, seed=s, vocab_a=cfg.vocab, vocab_b=cfg.vocab)
        base, _ = base_model(sub, cfg, s, "cpu")
        w = sub.world
        # D2: held-out B text = template 0 + one never-seen word; split the bits
        for name, lr in (("expand_mean", 1e-3), ("orig_tok", 4e-3)):
            m, tok, _ = adapt(name, base, sub, dataclasses.replace(cfg.cpt, lr=lr), seq_len=128, seed=s)
            facts = w.of("AB", "B")
            t5 = corpus(facts, "B", (5,)); t0_ = corpus(facts, "B", (0,))
            l5, _ = text_logprobs(m, tok, t5); l0, _ = text_logprobs(m, tok, t0_)
            nb5 = sum(len(x.encode()) for x in t5); nb0 = sum(len(x.encode()) for x in t0_)
            extra_bits = float((l0.sum() - l5.sum()) / np.log(2))
            out[f"D2/{s}/{name}"] = {"bpb_t5": float(-l5.sum() / np.log(2) / nb5), "bpb_t0": float(-l0.sum() / np.log(2) / nb0),
                                     "share_of_t5_bits_on_new_word": extra_bits / float(-l5.sum() / np.log(2))}
            print("D2", s, name, out[f"D2/{s}/{name}"], flush=True)
        # D3: SFT's answer prior
        a_f, held = split_facts(w, cfg.align.align_frac, seed=s)
        m, tok, _ = adapt("expand_mean", base, sub, dataclasses.replace(cfg.cpt, lr=1e-3), seq_len=128, seed=s)
        for method, lr in (("sft", 1e-3), ("sft_dpo", 3e-3)):
            al, _ = align(m, tok, w, a_f, dataclasses.replace(cfg.align, lr=lr), method=method, seed=s)
            seen = {(p.fact.relation, p.answer) for p in align_probes(a_f, w)}
            ps = align_probes(held, w)
            for label, model in (("cpt", m), (method, al)):
                q = qa_scores(model, tok, ps)
                # top candidate per probe
                from allam.metrics import score_continuations
                tops = []
                for p in ps:
                    pre = [[tok.bos_token_id, *tok(p.prompt, add_special_tokens=False)["input_ids"]]] * len(p.candidates)
                    conts = [list(tok(c, add_special_tokens=False)["input_ids"]) for c in p.candidates]
                    lp, _ = score_continuations(model, pre, conts, pad_id=tok.pad_token_id)
                    tops.append(p.candidates[int(np.argmax(lp))])
                top_seen = np.mean([(p.fact.relation, t) in seen for p, t in zip(ps, tops)])
                true_seen = np.mean([(p.fact.relation, p.answer) in seen for p in ps])
                out[f"D3/{s}/{method}/{label}"] = {"rank": float(q["rank_score"].mean()), "top_in_align_answers": float(top_seen), "true_in_align_answers": float(true_seen)}
                print("D3", s, method, label, out[f"D3/{s}/{method}/{label}"], flush=True)
    # D1: 4x CPT on two seeds: does B knowledge / transfer / ICL translation appear?
    for s in (100, 101):
        sub = make_substrate(cfg.world, seed=s, vocab_a=cfg.vocab, vocab_b=cfg.vocab)
        base, _ = base_model(sub, cfg, s, "cpu"); w = sub.world
        for name in ("expand_mean", "translation"):
            rows = []
            def hook(model, tok, step):
                r = {"step": step}
                for key, ps in (("b_stated", qa_probes(w.of("AB", "B"), "B", w)), ("b_aonly", qa_probes(w.of("A"), "B", w)),
                                ("icl", translation_probes(w.of("A"), w)), ("a", qa_probes(w.of("A", "AB"), "A", w))):
                    q = qa_scores(model, tok, ps); r[f"{key}_rank"] = float(q["rank_score"].mean()); r[f"{key}_em"] = float(q["exact"].mean())
                rows.append(r); print("D1", s, name, r, flush=True)
            adapt(name, base, sub, dataclasses.replace(cfg.cpt, steps=640, lr=1e-3), seq_len=128, seed=s, callback=hook, every=160)
            out[f"D1/{s}/{name}"] = rows
print("CPU", time.process_time() - t0)
json.dump(out, open("/tmp/h36/diag.json", "w"), indent=1)
