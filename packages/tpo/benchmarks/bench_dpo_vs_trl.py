"""Our DPO against TRL's ``DPOTrainer`` on the same batch: the loss at the same weights and the time of one
loss + backward; then TPO's step time against the list size N (it scores N sequences a list, DPO 2).

Run (trl is in the package's ``bench`` dependency group, never a runtime dependency)::

    python benchmarks/bench_dpo_vs_trl.py [--repeats 20] [--lists 16]

Without trl (or datasets) importable, the peer is a plain-torch DPO written here from the DPO paper's
formula (logits -> log_softmax -> gather -> masked sums), and the output says so.
"""

from __future__ import annotations

import argparse
import copy
import statistics
import tempfile
import time
import warnings
from collections.abc import Callable

import numpy as np
import torch
from paperkit.lm import char_tokenizer, tiny_causal_lm
from tpo.arith import ALPHABET, make_tree, split_problems
from tpo.logprobs import encode_lists
from tpo.reproduce.config import Config
from tpo.training import DPOObjective, TPOObjective, preference_loss

MAXLEN = 96


def _time(fn: Callable[[], torch.Tensor], repeats: int) -> tuple[float, float]:
    fn().backward()  # warm-up
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn().backward()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), float(fn().detach())


def plain_torch_dpo(policy, ref, batch: dict[str, torch.Tensor], n_pairs: int, beta: float) -> torch.Tensor:
    """DPO written out: −log σ(β[(log π_w − log π_ref,w) − (log π_l − log π_ref,l)]), chosen rows first."""

    def logp(model: torch.nn.Module) -> torch.Tensor:
        logits = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).logits[:, :-1]
        tok = torch.log_softmax(logits, -1).gather(-1, batch["input_ids"][:, 1:, None]).squeeze(-1)
        return (tok * batch["response_mask"][:, 1:]).sum(-1)

    pol = logp(policy)
    with torch.no_grad():
        rf = logp(ref)
    lr = pol - rf
    return -torch.nn.functional.logsigmoid(beta * (lr[:n_pairs] - lr[n_pairs:])).mean()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--lists", type=int, default=16)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    tok = char_tokenizer(ALPHABET)
    ref = tiny_causal_lm(tok, d_model=64, n_layer=2, n_head=4, max_positions=MAXLEN, seed=0)
    pol = copy.deepcopy(ref)
    gen = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for p in pol.parameters():
            p.add_(0.05 * torch.randn(p.shape, generator=gen))
    rng = np.random.default_rng(0)
    problems = split_problems([args.lists], 0, Config().spec)[0]
    trees = [make_tree(p, rng, n_branches=8) for p in problems]  # up to N = 10
    pairs = [t.subset([t.best, int(np.argmin(t.scores))]) for t in trees]
    pair_batch = encode_lists(tok, pairs, max_length=MAXLEN)
    dpo = DPOObjective(beta=0.1, pair_sampling="best_vs_worst")
    ours_t, ours_loss = _time(lambda: preference_loss(pol, ref, pair_batch, dpo), args.repeats)
    print(
        f"threads {args.threads}, {args.lists} pairs a batch, GPT-2 d=64 x 2 layers, {args.repeats} repeats"
    )
    print(f"ours (tpo.DPOObjective)       loss {ours_loss:.7f}   loss+backward {1e3 * ours_t:7.2f} ms")

    peer = "TRL DPOTrainer.compute_loss"
    try:
        import datasets
        import trl
    except ImportError as err:
        trl = None
        peer = f"plain-torch DPO (trl not importable: {err})"
    if trl is not None:
        data = datasets.Dataset.from_dict(
            {
                "prompt": ["<bos>" + t.prompt for t in pairs],
                "chosen": [t.responses[0] for t in pairs],
                "rejected": [t.responses[1] for t in pairs],
            }
        )
        with tempfile.TemporaryDirectory() as out, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cfg = trl.DPOConfig(
                output_dir=out,
                beta=0.1,
                report_to=[],
                per_device_train_batch_size=len(pairs),
                use_cpu=True,
                max_length=None,
                loss_type=["sigmoid"],
                disable_tqdm=True,
            )
            trainer = trl.DPOTrainer(
                model=pol, ref_model=ref, args=cfg, train_dataset=data, processing_class=tok
            )
            batch = trainer.data_collator([trainer.train_dataset[i] for i in range(len(pairs))])
            peer_t, peer_loss = _time(lambda: trainer.compute_loss(trainer.model, batch), args.repeats)
        print(f"trl {trl.__version__}")
    else:
        flat = pair_batch.flat()
        n = len(pairs)
        idx = torch.cat([torch.arange(0, 2 * n, 2), torch.arange(1, 2 * n, 2)])  # chosen rows, then rejected
        batch = {k: v[idx] for k, v in flat.items()}
        peer_t, peer_loss = _time(lambda: plain_torch_dpo(pol, ref, batch, n, 0.1), args.repeats)
    print(f"peer ({peer}) loss {peer_loss:.7f}   loss+backward {1e3 * peer_t:7.2f} ms")
    print(f"|loss difference| {abs(ours_loss - peer_loss):.2e}; time ratio ours/peer {ours_t / peer_t:.2f}")

    print("\nTPO (λ-weights + ASR) loss+backward against the list size N (same lists, first N members):")
    base = None
    for n in (2, 5, 10):
        lists = [t.sorted().subset(list(range(n))) for t in trees]
        b = encode_lists(tok, lists, max_length=MAXLEN)
        t_n, _ = _time(lambda b=b: preference_loss(pol, ref, b, TPOObjective(beta=0.1)), args.repeats)
        base = base or t_n
        print(
            f"  N = {n:2d}: {1e3 * t_n:7.2f} ms  ({t_n / base:.2f} x N=2; DPO on pairs {t_n / ours_t:.2f} x)"
        )


if __name__ == "__main__":
    main()
