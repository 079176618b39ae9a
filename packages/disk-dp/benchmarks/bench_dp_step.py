"""DP-SGD step time and epsilon: ours vs Opacus (the named peer, PyPI ``opacus``, bench dependency group).

Same model (the digits MLP 64-64-10, tanh, 4 810 parameters), same batch of B examples, same sigma and C.
Opacus: ``PrivacyEngine.make_private`` (hook-based ``GradSampleModule``, flat clipping, noise on the sum,
``loss_reduction="mean"``), timed over ``optimizer.zero_grad(); loss.backward(); optimizer.step()``.
Ours: ``make_dp_sgd`` (``torch.func.vmap(grad)``) and DiSK (one- and two-gradient) on the same batch.
Epsilon: our RDP accountant vs ``opacus.accountants.RDPAccountant`` for the digits setting at several
target epsilons, plus Opacus' PRV accountant for reference.

Run: ``python benchmarks/bench_dp_step.py [--steps 200] [--batch 64]`` (about a minute). One torch thread,
CPU; process CPU time (``time.process_time``); steps interleaved (ours, Opacus, ...) so machine load
affects both alike; medians reported.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
import warnings

import numpy as np
import torch
import torch.nn.functional as F
from disk_dp import epsilon, load, make_closure, make_disk_sgd, make_dp_sgd, mlp, noise_for_epsilon
from disk_dp.clipping import per_sample_grads
from disk_dp.training import cross_entropy, steps_for_epochs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--batch", type=int, default=64)
    args = ap.parse_args()
    torch.set_num_threads(1)
    warnings.filterwarnings("ignore")
    from opacus import PrivacyEngine
    from opacus.accountants import PRVAccountant, RDPAccountant

    ds = load("digits")
    xb, yb = ds.x_train[: args.batch], ds.y_train[: args.batch]
    sigma, clip = 1.0, 1.0

    ours_model = mlp(64, 64, 10, seed=0)
    ours = make_dp_sgd(
        ours_model, 0.1, noise_multiplier=sigma, max_grad_norm=clip, expected_batch_size=args.batch
    )
    disk1_model = mlp(64, 64, 10, seed=0)
    disk1 = make_disk_sgd(
        disk1_model,
        0.1,
        noise_multiplier=sigma,
        max_grad_norm=clip,
        expected_batch_size=args.batch,
        gamma=3 / 7,
    )
    disk2_model = mlp(64, 64, 10, seed=0)
    disk2 = make_disk_sgd(
        disk2_model, 0.1, noise_multiplier=sigma, max_grad_norm=clip, expected_batch_size=args.batch
    )

    op_model = mlp(64, 64, 10, seed=0)
    op_opt = torch.optim.SGD(op_model.parameters(), lr=0.1)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(xb, yb), batch_size=args.batch)
    engine = PrivacyEngine(accountant="rdp")
    op_model, op_opt, _ = engine.make_private(
        module=op_model,
        optimizer=op_opt,
        data_loader=loader,
        noise_multiplier=sigma,
        max_grad_norm=clip,
        poisson_sampling=False,
    )

    def step_ours() -> None:
        ours.step(make_closure(ours_model, cross_entropy, xb, yb, summed=True))

    vm_model = mlp(64, 64, 10, seed=0)
    vm = make_dp_sgd(
        vm_model, 0.1, noise_multiplier=sigma, max_grad_norm=clip, expected_batch_size=args.batch
    )

    def step_vmap() -> None:  # the generic path any model takes (vmap over examples of grad)
        vm.step(lambda: per_sample_grads(vm_model, cross_entropy, xb, yb, method="vmap"))

    def step_disk1() -> None:
        disk1.step(make_closure(disk1_model, cross_entropy, xb, yb, summed=True))

    def step_disk2() -> None:
        disk2.step(make_closure(disk2_model, cross_entropy, xb, yb, summed=True))

    def step_opacus() -> None:
        op_opt.zero_grad()
        F.cross_entropy(op_model(xb), yb).backward()
        op_opt.step()

    fns = {
        "ours DP-SGD": step_ours,
        "Opacus DP-SGD": step_opacus,
        "ours DP-SGD (vmap path)": step_vmap,
        "ours DiSK c=1": step_disk1,
        "ours DiSK two-gradient": step_disk2,
    }
    times: dict[str, list[float]] = {k: [] for k in fns}
    for i in range(args.steps + 5):
        for k, fn in fns.items():
            t0 = time.process_time()
            fn()
            if i >= 5:
                times[k].append(time.process_time() - t0)
    med = {k: float(np.median(v)) for k, v in times.items()}
    print(
        f"median step time, B = {args.batch}, {args.steps} steps, 1 thread, {platform.processor() or 'cpu'}:"
    )
    for k, v in med.items():
        print(f"  {k:24s} {1e3 * v:8.3f} ms   ratio to Opacus DP-SGD {v / med['Opacus DP-SGD']:.3f}")

    q = 64 / ds.n
    rows = []
    for epochs, eps_target in ((10, 1.0), (10, 4.0), (20, 1.0), (20, 8.0)):
        steps = steps_for_epochs(epochs, q)
        s = noise_for_epsilon(eps_target, 1e-5, q, steps)
        t0 = time.perf_counter()
        e_ours = epsilon(q, s, steps, 1e-5)
        t_ours = time.perf_counter() - t0
        rdp = RDPAccountant()
        rdp.history = [(s, q, steps)]
        t0 = time.perf_counter()
        e_rdp = rdp.get_epsilon(1e-5)
        t_rdp = time.perf_counter() - t0
        prv = PRVAccountant()
        prv.history = [(s, q, steps)]
        e_prv = prv.get_epsilon(1e-5)
        rows.append(
            {
                "epochs": epochs,
                "sigma": s,
                "T": steps,
                "eps ours": e_ours,
                "eps Opacus RDP": e_rdp,
                "ratio": e_ours / e_rdp,
                "eps Opacus PRV": e_prv,
                "accountant time ratio": t_ours / t_rdp,
            }
        )
    print("epsilon, digits setting q = 64/n, delta = 1e-5:")
    for r in rows:
        print("  " + ", ".join(f"{k} {v:.6g}" if isinstance(v, float) else f"{k} {v}" for k, v in r.items()))
    print(json.dumps({"step_ms": {k: 1e3 * v for k, v in med.items()}, "epsilon": rows}))


if __name__ == "__main__":
    main()
