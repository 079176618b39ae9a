"""Our attacks vs torchattacks 3.5.1 (an independent implementation) on one AT-trained model.

Run: ``uv run --package iclr25-arat --group bench python benchmarks/bench_attacks.py``. Trains PGD-AT
(eps 0.3, 10 epochs, seed 0) on digits, then reports the robust test accuracy under our PGD-20 (CE),
torchattacks.PGD with the same eps/step/steps, our APGD-CE and torchattacks.APGD (CE), and the CPU time
of each attack after a warm-up call, with the ratio ours / torchattacks. Accuracies should agree within
a few test images (random starts differ).
"""

from __future__ import annotations

import time

import torch
import torchattacks
from arat.attacks import apgd_ce, pgd
from arat.methods import fit
from paperkit.vision import load_digits

EPS, STEPS = 0.3, 20


def _acc(model: torch.nn.Module, x: torch.Tensor, y: torch.Tensor) -> float:
    with torch.no_grad():
        return float((model(x).argmax(1) == y).float().mean())


def _timed(fn):  # type: ignore[no-untyped-def]
    fn()  # warm-up
    t0 = time.process_time()
    out = fn()
    return out, time.process_time() - t0


def main() -> None:
    torch.set_num_threads(1)
    d = load_digits(8, seed=0)
    model = fit(
        "at", d.x_train, d.y_train, channels=(16, 32, 32, 32), epochs=10, eps=EPS, seed=0
    ).model.eval()
    x, y = d.x_test, d.y_test
    gen = torch.Generator().manual_seed(0)
    rows = {
        "ours PGD-20": lambda: pgd(model, x, y, eps=EPS, alpha=EPS / 10, steps=STEPS, generator=gen),
        "torchattacks PGD-20": lambda: torchattacks.PGD(model, eps=EPS, alpha=EPS / 10, steps=STEPS)(x, y),
        "ours APGD-CE-50": lambda: apgd_ce(model, x, y, eps=EPS, steps=50, generator=gen),
        "torchattacks APGD-CE-50": lambda: torchattacks.APGD(model, eps=EPS, steps=50, loss="ce")(x, y),
    }
    res = {k: _timed(f) for k, f in rows.items()}
    print(f"clean accuracy {_acc(model, x, y):.3f} on {len(y)} test images")
    for k, (adv, t) in res.items():
        print(f"{k:26s} robust accuracy {_acc(model, adv, y):.3f}  CPU {t:.2f} s")
    for ours, ref in (("ours PGD-20", "torchattacks PGD-20"), ("ours APGD-CE-50", "torchattacks APGD-CE-50")):
        print(f"time ratio {ours} / {ref}: {res[ours][1] / res[ref][1]:.2f}x")


if __name__ == "__main__":
    main()
