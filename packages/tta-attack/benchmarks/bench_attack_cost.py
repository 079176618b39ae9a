"""Cost of one attacked batch: FCA against the DIA baseline (the paper's peer), vs PGD steps and batch size.

The named peers (the DIA reference code of Wu et al. 2023, RTTDP, TePA) are not installable offline, so the
peer here is our DIA on the same harness (same model, batch, budget): the ratio FCA / DIA is what FCA's
extra work (features, cosines, centroids) costs per step. Process CPU time, one thread, after one warm-up
call, repetitions interleaved between the attacks.
Run: ``OMP_NUM_THREADS=1 python benchmarks/bench_attack_cost.py``.
"""

from __future__ import annotations

import time

import torch
from paperkit import torch_threads
from paperkit.vision import small_cnn
from tta_attack import Adapter, AttackConfig, craft, digits_split


def cpu(fn) -> float:
    t = time.process_time()
    fn()
    return time.process_time() - t


def main() -> None:
    split = digits_split(seed=0, test_fraction=0.3)
    model = Adapter("tent", small_cnn(1, 10, channels=(16, 32), image_size=16, seed=0)).model
    with torch_threads(1):
        for batch in (50, 100):
            x, y = split.x_test[:batch], split.y_test[:batch]
            for steps in (10, 40):
                cfg = AttackConfig(eps=16 / 255, alpha=4 / 255, steps=steps)
                runs = {a: _runner(a, model, x, y, cfg) for a in ("dia", "dia_pseudo", "fca")}
                for f in runs.values():
                    f()  # warm-up
                t = dict.fromkeys(runs, 0.0)
                for _ in range(3):
                    for a, f in runs.items():
                        t[a] += cpu(f) / 3
                cost = ", ".join(f"{a} {v * 1e3:.0f} ms" for a, v in t.items())
                ratio = t["fca"] / t["dia"]
                print(
                    f"B={batch:3d} K={steps:3d}: {cost}; fca/dia = {ratio:.2f}, per step fca "
                    f"{t['fca'] / steps * 1e3:.1f} ms"
                )


def _runner(a, model, x, y, cfg):
    return lambda: craft(a, model, x, cfg, labels=y if a == "dia" else None)


if __name__ == "__main__":
    torch.manual_seed(0)
    main()
