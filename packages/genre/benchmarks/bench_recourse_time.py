"""Recourse generation time per 1 000 negatives: GenRe's forward sampling (k × d sequential decoder steps,
batched over individuals) against the peers' per-instance searches — Wachter's gradient iterations, Growing
Spheres' shell sampling — and NNR's lookup; plus pair construction (chunked vs the dense matrix) and the
pair model's training time per epoch. Prints seconds and ratios (peer / GenRe).

    python benchmarks/bench_recourse_time.py [--n 1000] [--device cpu]

Runs on one torch thread; the numbers are wall seconds on whatever machine runs it (ours is a shared
2-core CPU, so they are inflated by contention).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch
from genre import NNR, GenRe, GrowingSpheres, MLPClassifier, Wachter, as_proba, load_moons
from genre.pairs import pair_distribution, pair_weights_dense


def timed(fn, repeat: int = 1) -> tuple[float, object]:
    best, out = np.inf, None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1000, help="negatives to give recourse to")
    ap.add_argument("--device", default="cpu")
    args = ap.parse_args()
    torch.set_num_threads(1)
    ds = load_moons(0)
    clf = MLPClassifier((4, 4), lr=0.05, epochs=100, batch_size=64, seed=0, device=args.device)
    clf.fit(ds.X_train, ds.y_train)
    h = as_proba(clf)
    rng = np.random.default_rng(0)
    pool = ds.X_train[h(ds.X_train) < 0.5]
    X_neg = pool[rng.integers(0, len(pool), args.n)] + rng.normal(0, 0.01, (args.n, 2))
    X_neg = np.clip(X_neg, 0, 1)
    X_neg = X_neg[h(X_neg) < 0.5]
    n = len(X_neg)

    g = GenRe(
        clf,
        top_k=200,
        emb=16,
        heads=4,
        enc_layers=2,
        dec_layers=2,
        ff=32,
        lr=1e-3,
        epochs=1,
        batch_size=256,
        seed=0,
        device=args.device,
    )
    t_epoch, _ = timed(lambda: g.fit(ds.X_train, ds.y_train))
    g.epochs = 20
    t_20, _ = timed(lambda: g.fit(ds.X_train, ds.y_train))
    rows = []
    t_genre, cf = timed(lambda: g.recourse(X_neg), repeat=2)
    rows.append(("GenRe (k = 10, 2+2 layers)", t_genre, float((h(cf) > 0.5).mean())))
    t_w, cf = timed(lambda: Wachter(clf, device=args.device).recourse(X_neg))
    rows.append(("Wachter (Adam, ≤ 3 × 1000 steps)", t_w, float((h(cf) > 0.5).mean())))
    t_gs, cf = timed(lambda: GrowingSpheres(clf, seed=0).recourse(X_neg))
    rows.append(("Growing Spheres", t_gs, float((h(cf) > 0.5).mean())))
    nnr = NNR(clf).fit(ds.X_train, ds.y_train)
    t_nnr, cf = timed(lambda: nnr.recourse(X_neg), repeat=3)
    rows.append(("NNR", t_nnr, float((h(cf) > 0.5).mean())))

    print(f"recourse for {n} negatives on moons ({args.device}, 1 thread):")
    print(f"{'method':36s} {'seconds':>9s} {'per 1000':>9s} {'validity':>9s} {'ratio to GenRe':>15s}")
    for name, t, v in rows:
        print(f"{name:36s} {t:9.3f} {1000 * t / n:9.3f} {v:9.3f} {t / t_genre:15.2f}")
    per_epoch = (t_20 - t_epoch) / 19
    print(f"\npair model training: 1-epoch fit {t_epoch:.2f} s (with set-up), 20 epochs {t_20:.2f} s")
    print(f"  -> {per_epoch:.3f} s per extra epoch")

    A, B = rng.random((2000, 10)), rng.random((1500, 10))
    t_chunk, _ = timed(lambda: pair_distribution(A, B, 5.0, k=1000))
    t_dense, _ = timed(lambda: pair_weights_dense(A, B, 5.0))
    mb_chunk, mb_dense = 256 * 1500 * 10 * 8 / 1e6, 2000 * 1500 * 10 * 8 / 1e6
    print(f"pair construction 2000 x 1500, d = 10: chunked top-K {t_chunk:.2f} s (~{mb_chunk:.0f} MB of")
    ratio = t_dense / t_chunk
    print(f"  differences at once) vs dense {t_dense:.2f} s (~{mb_dense:.0f} MB); ratio {ratio:.2f}")


if __name__ == "__main__":
    main()
