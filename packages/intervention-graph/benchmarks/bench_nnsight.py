"""Ours vs nnsight 0.8.1 vs hand-written hooks on the same model and interventions (process CPU time).

Run: ``uv run --package iclr25-intervention-graph --group bench python benchmarks/bench_nnsight.py``.
nnsight >= 0.5 reads the source of the ``with`` block, so this must stay a real .py file. Workloads, each
after one warm-up, interleaved (ours, hooks, nnsight) for ``REPS`` rounds, medians:

- ``patch``: one activation-patching trace of 32 clean/corrupt pairs, block 1, position 6 (ours: two
  invokes; nnsight: one invoke on the concatenated batch, since its plain ``NNsight`` wrapper cannot batch
  invokes; hooks: one hook on the same batch);
- ``read``: one trace saving one block output of a 64 x 16 batch (the fixed overhead);
- ``many``: one trace with 100 saved getters (4 blocks x 25 slices);
- ``grad``: one forward + backward of 32 prompts reading the gradient of all 4 block outputs, block 2's
  gradient zeroed at the final position on its way down (ours: ``with loss.backward():`` in a trace;
  nnsight 0.8.1: the same code, its ``with loss.backward():``; hooks: ``retain_grad``/``register_hook``
  and ``loss.backward()``). Autograd is on for all three; nnsight and the hooks call ``Tensor.backward``
  (the parameters' ``.grad`` is filled, then cleared), ours ``torch.autograd.grad`` on the block outputs.

Results are checked equal (max |diff| to hooks) before timing. Prints one table and the ratios.
"""

from __future__ import annotations

import time

import numpy as np
import torch
from intervention_graph import copy_pairs, tiny_gpt2, wrap
from intervention_graph.gradients import graph_grads, hook_grads
from intervention_graph.methods import hook_task

REPS = 15


def ours_patch(m, clean, corrupt):
    with m.trace() as tr:
        with tr.invoke(clean):
            src = m.transformer.h[1].output[:, 6]
        with tr.invoke(corrupt):
            m.transformer.h[1].output[:, 6] = src
            out = m.lm_head.output[:, -1].save()
    return out.value


def nn_patch(nm, clean, corrupt):
    # nnsight's plain NNsight wrapper refuses several invokes ("does not support batching multiple
    # invokes"; LanguageModel implements the batching): the same job as one invoke on the same batch.
    n = clean.shape[0]
    with nm.trace(torch.cat([clean, corrupt])):
        h = nm.transformer.h[1].output
        h[n:, 6] = h[:n, 6]
        out = nm.lm_head.output[n:, -1].save()
    return out


def ours_read(m, ids):
    with m.trace(ids):
        h = m.transformer.h[1].output.save()
    return h.value


def nn_read(nm, ids):
    with nm.trace(ids):
        h = nm.transformer.h[1].output.save()
    return h


def hooks_read(model, ids):
    seen = {}
    handle = model.transformer.h[1].register_forward_hook(lambda mod, a, o: seen.__setitem__("h", o))
    with torch.no_grad():
        model(ids)
    handle.remove()
    return seen["h"]


def ours_many(m, ids):
    with m.trace(ids):
        saves = [m.transformer.h[i].output[:, j % 16, :8].save() for i in range(4) for j in range(25)]
    return torch.stack([s.value for s in saves])


def nn_many(nm, ids):
    saves = []  # created outside the block: nnsight runs the block's code in its own frame
    with nm.trace(ids):
        for i in range(4):
            for j in range(25):
                saves.append(nm.transformer.h[i].output[:, j % 16, :8].save())
    return torch.stack(saves)


def hooks_many(model, ids):
    seen = []
    handles = [
        model.transformer.h[i].register_forward_hook(
            lambda mod, a, o: seen.extend(o[:, j % 16, :8] for j in range(25))
        )
        for i in range(4)
    ]
    with torch.no_grad():
        model(ids)
    for h in handles:
        h.remove()
    return torch.stack(seen)


def nn_grad(nm, model, ids, answers, mask):
    saves = []  # created outside the block: nnsight runs the block's code in its own frame
    with nm.trace(ids):
        outs = [nm.transformer.h[i].output for i in range(4)]
        logp = nm.lm_head.output[:, -1].log_softmax(-1)
        loss = logp.gather(1, answers[:, None]).sum()
        with loss.backward():
            for i in (3, 2, 1, 0):  # gradients arrive last block first
                saves.append(outs[i].grad.save())
                if i == 2:
                    outs[i].grad = outs[i].grad * mask
    model.zero_grad(set_to_none=True)  # Tensor.backward filled the parameters' .grad
    return torch.stack(saves[::-1])


def no_grad(fn):
    """nnsight runs the model with autograd on; ours and the hooks run under no_grad: level the field."""

    def run():
        with torch.no_grad():
            return fn()

    return run


def cpu(fn):
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


def main() -> None:
    torch.set_num_threads(1)
    import nnsight  # the peer (bench group only)

    model = tiny_gpt2(seed=0)
    nm = nnsight.NNsight(model)
    m = wrap(model)
    pairs = copy_pairs(32, seed=1)
    ids = copy_pairs(64, seed=2).clean
    n = pairs.clean.shape[0]
    work = {
        "patch": (
            lambda: ours_patch(m, pairs.clean, pairs.corrupt),
            lambda: hook_task(model, pairs.clean, pairs.corrupt, task="patching", layer=1, position=6)[n:],
            no_grad(lambda: nn_patch(nm, pairs.clean, pairs.corrupt)),
        ),
        "read": (
            lambda: ours_read(m, ids),
            lambda: hooks_read(model, ids),
            no_grad(lambda: nn_read(nm, ids)),
        ),
        "many": (
            lambda: ours_many(m, ids),
            lambda: hooks_many(model, ids),
            no_grad(lambda: nn_many(nm, ids)),
        ),
    }
    mask = torch.ones(16, 1)
    mask[15] = 0.0
    grad_kw = {"edit_layer": 2, "scale": 0.0, "position": 15}
    work["grad"] = (
        lambda: graph_grads(model, pairs.clean, pairs.answer, **grad_kw),
        lambda: hook_grads(model, pairs.clean, pairs.answer, **grad_kw),
        lambda: nn_grad(nm, model, pairs.clean, pairs.answer, mask),
    )
    print(f"nnsight {nnsight.__version__}, torch {torch.__version__}, 1 thread, {REPS} interleaved reps")
    print(
        "| workload | ours ms | hooks ms | nnsight ms | ours/hooks | nnsight/hooks | ours-hooks |"
        " nnsight-hooks |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for name, fns in work.items():
        outs = [fn() for fn in fns]  # warm-up and the equality check
        eq = [float((o - outs[1]).detach().abs().max()) for o in outs]
        times = np.zeros((3, REPS))
        for r in range(REPS):
            for k in range(3) if r % 2 == 0 else reversed(range(3)):
                times[k, r] = cpu(fns[k])
        med = np.median(times, axis=1) * 1e3
        print(f"| {name} | {med[0]:.2f} | {med[1]:.2f} | {med[2]:.2f} | {med[0] / med[1]:.2f} | "
              f"{med[2] / med[1]:.2f} | {eq[0]:.1e} | {eq[2]:.1e} |")  # fmt: skip


if __name__ == "__main__":
    main()
