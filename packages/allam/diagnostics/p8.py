"""Pilot P8 (RESULTS.md section 16): A-pretraining budget for fewer entities. pretrain_base's recipe
(shuffled epochs, packed rows of 128, Adam, warm-up 20 + cosine) with A QA exact match at checkpoints."""
import sys, time
import dataclasses
from paperkit import torch_threads
from allam.reproduce import Config
from allam.methods import make_substrate, ModelConfig
from allam.train import epochs, pack, train_lm
from allam.metrics import qa_scores
from allam.data import WorldConfig, qa_probes
from paperkit.lm import tiny_causal_lm

n_ent, steps, lr = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
seeds = [int(x) for x in sys.argv[4].split(",")]
every = int(sys.argv[5])
mc = ModelConfig()
with torch_threads(1):
    for s in seeds:
        t = time.process_time()
        sub = make_substrate(WorldConfig(n_entities=n_ent), seed=s, vocab_a=512, vocab_b=512)
        m = tiny_causal_lm(sub.tok_a, n_layer=mc.n_layer, n_head=mc.n_head, d_model=mc.d_model, max_positions=mc.seq_len, seed=s, device="cpu")
        n_docs = steps * 8 * mc.seq_len // 8 + len(sub.texts["a_train"])
        docs = epochs(sub.texts["a_train"], max(1, n_docs // len(sub.texts["a_train"])), seed=s)
        rows = pack(sub.tok_a, docs, mc.seq_len)
        probes = qa_probes(sub.world.of("A", "AB"), "A", sub.world)
        em = {}
        def cb(step):
            em[step] = round(float(qa_scores(m, sub.tok_a, probes)["exact"].mean()), 3)
        losses = train_lm(m, rows, pad_id=sub.tok_a.pad_token_id, steps=steps, batch_size=8, lr=lr, warmup=20, seed=s, callback=cb, every=every)
        print(n_ent, steps, lr, s, "n_A_facts", len(probes), "EM", em, "loss", round(sum(losses[-10:]) / 10, 3), "CPU", round(time.process_time() - t, 1), flush=True)
