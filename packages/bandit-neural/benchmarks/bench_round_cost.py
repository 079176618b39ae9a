"""Per-round cost of the gradient-feature machinery: ours vs the NeuralTS / NeuralUCB reference code's.

No public implementation of NDB-UCB/NDB-TS exists (the spec found none); the spec names the NeuralUCB /
NeuralTS reference implementations (uclaml/NeuralUCB ``learner_diag.py``, ZeroWeight/NeuralTS
``learner_neural.py``) as the peers for this machinery, on the binary-feedback variant. ``PeerNeuralTS``
below re-creates their per-round procedure (our code, their structure):

- a ``Linear(d, m) → ReLU → Linear(m, 1)`` network (with biases);
- one ``backward()`` per arm to get g(x_k) (a Python loop over the K arms);
- σ_k² = λ ν g_kᵀ U⁻¹ g_k, a sample r̃_k ~ N(h_k, σ_k), the argmax arm played;
- U ← U + g gᵀ, then **U⁻¹ = torch.inverse(U)**, a p×p inversion every round (dense variant), or
  U ← U + g² on the diagonal (``diagonal=True``, NeuralUCB's learner_diag);
- training: per-sample SGD (lr 1e-2, weight decay λ) over the shuffled data until 1000 steps or a mean
  squared loss ≤ 1e-3.

Ours (``NeuralGLMTS``): h and all K gradients from one batched manual back-propagation, σ from the
Sherman–Morrison-maintained V⁻¹ (O(p²) a round) or diag(V), training by J = 100 full-batch Adam steps on
the schedule of the spec.

Run: ``python benchmarks/bench_round_cost.py [--widths 32 64 128] [--rounds 200] [--train-rounds 60]``
(about 2-3 minutes). Also times our dueling NDB-UCB (select + covariance; and full rounds with training).
Prints rounds/second and the ratios ours/peer. Single torch thread (both), CPU, float64 (ours) and
float32 (peer, as its code).
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

import numpy as np
import torch
from bandit_neural import (
    ContextualBinaryEnv,
    ContextualDuelingEnv,
    NeuralDuelingUCB,
    NeuralGLMTS,
    NeuralGLMUCB,
    run_dueling,
)
from torch import nn


class PeerNeuralTS:
    """The per-round procedure of the NeuralTS / NeuralUCB(diag) reference code (see module docstring)."""

    def __init__(
        self, d: int, m: int, *, lam: float = 1.0, nu: float = 1.0, diagonal: bool = False, seed: int = 0
    ):
        torch.manual_seed(seed)
        self.net = nn.Sequential(nn.Linear(d, m), nn.ReLU(), nn.Linear(m, 1)).double()
        self.p = sum(q.numel() for q in self.net.parameters())
        self.lam, self.nu, self.diagonal = lam, nu, diagonal
        self.U = lam * (torch.ones(self.p) if diagonal else torch.eye(self.p)).double()
        self.U_inv = None if diagonal else torch.eye(self.p, dtype=torch.float64) / lam
        self.rng = np.random.default_rng(seed)
        self.xs: list[torch.Tensor] = []
        self.ys: list[float] = []

    def select(self, contexts: np.ndarray) -> int:
        x = torch.from_numpy(contexts)
        out = self.net(x)
        grads, samples = [], []
        for fx in out:  # one backward pass per arm
            self.net.zero_grad()
            fx.backward(retain_graph=True)
            g = torch.cat([q.grad.flatten().detach() for q in self.net.parameters()])
            grads.append(g)
            if self.diagonal:
                var = self.lam * self.nu * float((g * g / self.U).sum())
            else:
                var = float(g @ (self.lam * self.nu * self.U_inv @ g))
            samples.append(self.rng.normal(float(fx.detach()), np.sqrt(max(var, 0.0))))
        arm = int(np.argmax(samples))
        g = grads[arm]
        if self.diagonal:
            self.U += g * g
        else:
            self.U += torch.outer(g, g)
            self.U_inv = torch.inverse(self.U)  # p×p inversion every round
        return arm

    def update(self, contexts: np.ndarray, arm: int, y: int) -> None:
        self.xs.append(torch.from_numpy(contexts[arm : arm + 1]))
        self.ys.append(float(y))
        opt = torch.optim.SGD(self.net.parameters(), lr=1e-2, weight_decay=self.lam)
        steps, n = 0, len(self.ys)
        while True:
            total = 0.0
            for k in self.rng.permutation(n):
                opt.zero_grad()
                loss = (self.net(self.xs[k]) - self.ys[k]).pow(2).sum()
                loss.backward()
                opt.step()
                total += loss.item()
                steps += 1
                if steps >= 1000:
                    return
            if total / n <= 1e-3:
                return


def _rounds_per_second(make, env: ContextualBinaryEnv, rounds: int, train: bool, repeats: int = 3) -> float:
    """Best of ``repeats`` timings of ``rounds`` rounds of a fresh ``make()`` (the machine is shared:
    the best run is the least disturbed one)."""
    best = 0.0
    for _ in range(repeats):
        algo = make()
        for t in range(5):  # first-call costs (allocation, autograd start-up) are not per-round costs
            algo.select(env.contexts(t))
        start = time.perf_counter()
        for t in range(5, 5 + rounds):
            x = env.contexts(t)
            i = algo.select(x)
            if train:
                algo.update(x, i, env.pull(t, i))
            elif hasattr(algo, "gram"):  # ours: the covariance update of a round, without the refit
                _, phi = algo._features(algo._contexts(x))
                algo.gram.update(phi[i])
        best = max(best, rounds / (time.perf_counter() - start))
    return best


class _OursFullInverse:
    """Ours, but V⁻¹ recomputed by torch.linalg.inv every round (isolates the Sherman–Morrison gain)."""

    def __init__(self, algo) -> None:
        self.algo = algo
        p = algo.model.p
        self.V = algo.gram.reg * torch.eye(p, dtype=torch.float64)

    def select(self, contexts: np.ndarray) -> int:
        a = self.algo
        x = a._contexts(contexts)
        h, phi = a.model.features(x)
        sigma = torch.sqrt(a.gram.reg * ((phi @ a.gram._inv) * phi).sum(1).clamp_min(0))
        i = int(torch.argmax(h + a.nu * sigma * torch.randn(h.shape, generator=a._gen, dtype=h.dtype)))
        self.V += torch.outer(phi[i], phi[i])
        a.gram._inv = torch.linalg.inv(self.V)
        return i


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--widths", type=int, nargs="+", default=[32, 64, 128])
    parser.add_argument("--rounds", type=int, default=200, help="rounds timed for the selection cost")
    parser.add_argument("--train-rounds", type=int, default=60, help="rounds timed with training (m = 64)")
    parser.add_argument(
        "--duel-rounds", type=int, default=300, help="NDB-UCB rounds timed with training (spec schedule)"
    )
    parser.add_argument("--d", type=int, default=5)
    parser.add_argument("--K", type=int, default=10)
    parser.add_argument("--json", type=Path, default=None, help="also write the numbers here")
    args = parser.parse_args()
    torch.set_num_threads(1)
    env = ContextualBinaryEnv(args.d, args.K, "cosine", seed=0)
    rows = []
    print(
        f"CPU: {platform.processor() or platform.machine()}, torch {torch.__version__}, 1 thread; "
        f"d = {args.d}, K = {args.K}; rounds/second of select + covariance update (no training)"
    )
    print(
        f"{'m':>4} {'p':>5} | {'ours SM':>9} {'ours inv':>9} {'peer inv':>9} | "
        f"{'ours diag':>9} {'peer diag':>9} | {'SM/peer':>7} {'SM/inv':>7} {'diag/peer':>9}"
    )
    for m in args.widths:
        ours = _rounds_per_second(lambda m=m: NeuralGLMTS(args.d, width=m, seed=0), env, args.rounds, False)
        ours_inv = _rounds_per_second(
            lambda m=m: _OursFullInverse(NeuralGLMTS(args.d, width=m, seed=0)), env, args.rounds, False
        )
        peer = _rounds_per_second(lambda m=m: PeerNeuralTS(args.d, m), env, args.rounds, False)
        ours_diag = _rounds_per_second(
            lambda m=m: NeuralGLMUCB(args.d, width=m, diagonal=True, seed=0), env, args.rounds, False
        )
        peer_diag = _rounds_per_second(
            lambda m=m: PeerNeuralTS(args.d, m, diagonal=True), env, args.rounds, False
        )
        p = NeuralGLMTS(args.d, width=m).model.p
        row = {
            "m": m,
            "p_ours": p,
            "p_peer": PeerNeuralTS(args.d, m).p,
            "ours_sherman_morrison": ours,
            "ours_full_inverse": ours_inv,
            "peer_full_inverse": peer,
            "ours_diagonal": ours_diag,
            "peer_diagonal": peer_diag,
        }
        rows.append(row)
        print(
            f"{m:>4} {p:>5} | {ours:9.0f} {ours_inv:9.0f} {peer:9.0f} | {ours_diag:9.0f} {peer_diag:9.0f} |"
            f" {ours / peer:7.1f} {ours / ours_inv:7.1f} {ours_diag / peer_diag:9.1f}"
        )
    print(f"\nours, dueling NDB-UCB (K = {args.K}): rounds/second")
    print(f"{'m':>4} {'p':>5} | {'select+SM':>9} | {'full rounds, spec schedule':>27}")
    duel = ContextualDuelingEnv(args.d, args.K, "cosine", seed=0)
    for m in args.widths:
        best = 0.0
        for _ in range(3):
            algo = NeuralDuelingUCB(args.d, width=m, seed=0)
            start = time.perf_counter()
            for t in range(args.rounds):
                x = duel.contexts(t)
                i, j = algo.select(x)
                _, phi = algo._features(algo._contexts(x))
                algo.gram.update(phi[i] - phi[j])
            best = max(best, args.rounds / (time.perf_counter() - start))
        log = run_dueling(duel, NeuralDuelingUCB(args.d, width=m, seed=0), args.duel_rounds)
        full = args.duel_rounds / log.seconds
        rows[args.widths.index(m)].update(ndb_ucb_select_and_update=best, ndb_ucb_full_rounds=full)
        print(f"{m:>4} {algo.model.p:>5} | {best:9.0f} | {full:27.1f}")
    m = 64
    ours_t = _rounds_per_second(lambda: NeuralGLMTS(args.d, width=m, seed=0), env, args.train_rounds, True, 1)
    peer_t = _rounds_per_second(lambda: PeerNeuralTS(args.d, m), env, args.train_rounds, True, 1)
    print(
        f"\nfull rounds incl. training, m = {m}, first {args.train_rounds} rounds: ours {ours_t:.1f}/s "
        f"(100 Adam steps a round), peer {peer_t:.2f}/s (up to 1000 per-sample SGD steps a round); "
        f"ratio {ours_t / peer_t:.1f}"
    )
    if args.json is not None:
        args.json.write_text(
            json.dumps({"selection": rows, "with_training_m64": {"ours": ours_t, "peer": peer_t}}, indent=2)
        )


if __name__ == "__main__":
    main()
