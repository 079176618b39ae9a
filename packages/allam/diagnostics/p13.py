"""Pilot P13 (RESULTS.md section 19): a cheaper quick base. pretrain_base's recipe at a given row batch
(the full run's is 8 rows of 128 tokens) with A QA exact match at checkpoints, and its CPU cost.
Usage: p13.py N_ENTITIES STEPS LR SEEDS BATCH"""
import sys, time
from paperkit import torch_threads
from allam.methods import make_substrate, ModelConfig, pretrain_base
from allam.metrics import qa_scores
from allam.data import WorldConfig, qa_probes

if __name__ == "__main__":
    n_ent, steps, lr = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
    seeds = [int(x) for x in sys.argv[4].split(",")]
    batch = int(sys.argv[5])
    with torch_threads(1):
        for s in seeds:
            t = time.process_time()
            sub = make_substrate(WorldConfig(n_entities=n_ent), seed=s, vocab_a=512, vocab_b=512)
            probes = qa_probes(sub.world.of("A", "AB"), "A", sub.world)
            m, losses = pretrain_base(sub, ModelConfig(), steps=steps, batch_size=batch, lr=lr, seed=s)
            t1 = time.process_time() - t
            em = round(float(qa_scores(m, sub.tok_a, probes)["exact"].mean()), 3)
            print(f"entities {n_ent} steps {steps} lr {lr} batch {batch} seed {s} A-EM {em} "
                  f"loss {sum(losses[-20:]) / 20:.3f} CPU {t1:.1f}", flush=True)
