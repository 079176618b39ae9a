"""Diagnosis of the collapsing seed (issue 21): the first training steps of the full-run SNN (scale 0.1,
batch 16) at the official lr 8e-3 and at the lr this package now uses, on one seed.

Prints per step: the loss, the largest mean summed-softmax share (o / T averaged over the batch, max
over classes; 1.0 = every step of every sample gives one class all its probability), the gradient norm of
all weights, and the training accuracy of the batch. Run from the package folder:

    python diagnostics/softmax_collapse.py --seed 1 --steps 8 --lrs 8e-3 2e-3
"""

from __future__ import annotations

import argparse

import numpy as np
import torch
from barrel_snn.models import loss_fn
from barrel_snn.reproduce import Config, build_snn, make_data
from barrel_snn.training import make_optimizer


def first_steps(
    seed: int, steps: int, lr: float, batch: int, config: Config | None = None
) -> list[dict[str, float]]:
    """Per-step loss, max summed-softmax share, gradient norm and batch accuracy of the first ``steps``
    steps (``config``: the full run's by default)."""
    config = Config.full() if config is None else config
    d = make_data(config, seed)
    model = build_snn(config, seed, "cpu")
    opt = make_optimizer(model, lr)
    order = np.random.default_rng(seed).permutation(config.n_train)  # train()'s first epoch order
    T = d["xf_tr"].shape[1]
    rows = []
    for k in range(steps):
        idx = order[k * batch : (k + 1) * batch]
        xf, xt = torch.as_tensor(d["xf_tr"][idx]), torch.as_tensor(d["xt_tr"][idx])
        y = torch.as_tensor(d["y_tr"][idx], dtype=torch.long)
        opt.zero_grad()
        out, _ = model(xf, xt)
        loss = loss_fn(out, y, T)
        loss.backward()
        grad = torch.sqrt(sum((p.grad**2).sum() for p in model.parameters() if p.grad is not None))
        opt.step()
        share = float((out.detach() / (T - 1)).mean(0).max())
        acc = float((out.argmax(1) == y).float().mean())
        rows.append(
            {
                "step": k + 1,
                "loss": float(loss.detach()),
                "max_share": share,
                "grad_norm": float(grad),
                "batch_acc": acc,
            }
        )
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--steps", type=int, default=8)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--lrs", type=float, nargs="+", default=[8e-3, 2e-3])
    a = p.parse_args()
    torch.set_num_threads(1)
    for lr in a.lrs:
        for r in first_steps(a.seed, a.steps, lr, a.batch):
            print(f"seed {a.seed} lr {lr:g} batch {a.batch} " + " ".join(
                f"{k} {v:.3g}" for k, v in r.items()), flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
