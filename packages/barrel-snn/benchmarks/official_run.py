"""How far the official training recipe gets at scale 0.1 within a CPU budget (issue 40).

    python benchmarks/official_run.py [--scale 0.1] [--train 240] [--test 120] [--cpu-budget 120]

The official recipe (Adam lr 8e-3 with x5 / x2 for tau_adp / tau_m, StepLR(20, 0.8), batch 128, sequential
order, float32, double softmax) on our synthetic sweeps (``make_synthetic_sweeps``, the reproduction's
encoding), one epoch at a time until the process CPU time spent training passes ``--cpu-budget``; per
epoch its CPU seconds, loss and training accuracy; at the end the test accuracy, the steps per CPU-minute
and the epochs a 10-CPU-minute run would reach at that rate. One torch thread.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch
from barrel_snn import BarrelSNN, accuracy, encode_spikes, make_synthetic_sweeps
from barrel_snn.models import loss_fn
from barrel_snn.training import make_optimizer


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=float, default=0.1)
    ap.add_argument("--train", type=int, default=240)
    ap.add_argument("--test", type=int, default=120)
    ap.add_argument("--cpu-budget", type=float, default=120.0)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    torch.set_num_threads(1)
    force, torque, labels = make_synthetic_sweeps(a.train + a.test, seed=a.seed)
    xf, xt = encode_spikes(force, torque, np.random.default_rng(a.seed + 1), dt_rep=1)
    xf, xt = xf.astype(np.float32), xt.astype(np.float32)
    tr, te = slice(0, a.train), slice(a.train, a.train + a.test)
    model = BarrelSNN(scale=a.scale, seed=a.seed)
    steps_per_epoch = -(-a.train // 128)
    print(f"scale {a.scale:g} ({model.n} neurons), {a.train} train / {a.test} test sweeps, batch 128 "
          f"({steps_per_epoch} steps per epoch), CPU budget {a.cpu_budget:g} s")  # fmt: skip
    opt = make_optimizer(model)  # the official groups, as barrel_snn.train builds them
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=20, gamma=0.8)
    rng = np.random.default_rng(515)
    x_f, x_t, y_all = torch.as_tensor(xf[tr]), torch.as_tensor(xt[tr]), torch.as_tensor(labels[tr])
    spent, epoch = 0.0, 0
    print("| epoch | CPU s | loss | train acc |")
    print("|---|---|---|---|")
    model.train()
    while spent < a.cpu_budget:  # the loop of barrel_snn.train, one epoch at a time, timed
        c0 = time.process_time()
        order, tot, correct = rng.permutation(a.train), 0.0, 0
        for k in range(0, a.train, 128):
            idx = torch.as_tensor(order[k : k + 128])
            opt.zero_grad()
            out, _ = model(x_f[idx], x_t[idx])
            loss = loss_fn(out, y_all[idx].long(), xf.shape[1])
            loss.backward()
            opt.step()
            tot += float(loss.detach()) * len(idx)
            correct += int((out.argmax(1) == y_all[idx]).sum())
        sched.step()
        dt = time.process_time() - c0
        spent += dt
        epoch += 1
        print(f"| {epoch} | {dt:.1f} | {tot / a.train:.4f} | {correct / a.train:.3f} |", flush=True)
    model.constrain_()
    acc = accuracy(model, xf[te], xt[te], labels[te])
    rate = epoch * steps_per_epoch / (spent / 60)
    reach = 10 * rate / steps_per_epoch
    print(f"\n{epoch} epochs ({epoch * steps_per_epoch} steps) in {spent:.1f} CPU s: {rate:.1f} steps per "
          f"CPU-minute; test accuracy {acc:.3f}; a 10-CPU-minute run reaches ~{reach:.0f} epochs of the "
          "official 100")  # fmt: skip


if __name__ == "__main__":
    main()
