"""The small-scale reproduction: TPO vs DPO on programmatic step-by-step arithmetic preference trees.

One ``run``: draw disjoint train/dev/test problems; SFT a tiny GPT-2 on a 70/30 mix of gold and slipped
solutions (the reference policy, which errs); build a preference tree per problem. Then every compared
method (DPO with a random pair, DPO best-vs-worst as the official baseline, TPO) is tuned on the dev
split's greedy accuracy over the same lr x β grid with the same budget (steps, lists a step), starting
from the same reference, with the same data order (:func:`paperkit.stats.tune`). Each method's chosen
setting is trained under ``n_seeds`` paired seeds (the same seed: the same list order and pair draws for
every method; seed 0 is the tuning run itself) and scored per test problem: greedy final-answer
correctness (the paper's metric) and, as a proxy, the Kendall τ-b of the implicit rewards against the
scores.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from paperkit import Report, Tuned, torch_threads, track, tune
from paperkit.lm import (
    TrainConfig,
    char_tokenizer,
    generate,
    sequence_logprobs,
    tiny_causal_lm,
    train_causal_lm,
)

from tpo.arith import (
    ALPHABET,
    ArithProblem,
    is_correct,
    make_tree,
    score_response,
    sft_mixture,
    split_problems,
)
from tpo.data import PreferenceList
from tpo.logprobs import ListBatch, encode_lists
from tpo.metrics import kendall_tau
from tpo.reproduce.config import METHODS, TUNED, Config
from tpo.training import DPOObjective, TPOObjective, implicit_rewards, preference_loss, train_preference


@dataclass(frozen=True)
class MethodRun:
    """One trained method under one seed, scored per test problem (``(n_test,)`` arrays)."""

    method: str
    seed: int
    lr: float
    beta: float
    correct: np.ndarray
    score: np.ndarray
    tau_plain: np.ndarray
    tau_asr: np.ndarray
    first_loss: float
    last_loss: float
    step_s: float
    curve: tuple[float, ...]


@dataclass(frozen=True)
class Reference:
    """The SFT reference policy on the test problems."""

    correct: np.ndarray
    score: np.ndarray
    tau_loglik: float
    final_loss: float
    step_s: float


@dataclass(frozen=True)
class Records:
    config: Config
    seed: int
    reference: Reference
    tuning: Mapping[str, Tuned]
    runs: Mapping[str, tuple[MethodRun, ...]]
    pair_check: Mapping[str, float]


@dataclass(frozen=True)
class _Data:
    tok: Any
    train_trees: list[PreferenceList]
    dev_p: list[ArithProblem]
    test_p: list[ArithProblem]
    test_trees: list[PreferenceList]
    test_batch: ListBatch
    dev_batch: ListBatch | None


def answers(model: torch.nn.Module, tokenizer: Any, problems: list[ArithProblem], device: str) -> np.ndarray:
    """(2, n): greedy final-answer correctness (0/1) and exact-correctness score per problem."""
    outs = generate(
        model, tokenizer, [p.prompt for p in problems], max_new_tokens=64, batch_size=256, device=device
    )
    pairs = list(zip(problems, outs, strict=True))
    return np.array([[float(is_correct(p, o)) for p, o in pairs], [score_response(p, o) for p, o in pairs]])


def list_taus(policy: torch.nn.Module, ref: torch.nn.Module, batch: ListBatch, beta: float) -> np.ndarray:
    """(2, n_lists): Kendall τ-b of the plain and the ASR implicit rewards vs the scores (NaN: undefined)."""
    r = implicit_rewards(policy, ref, batch, beta=beta, asr=TPOObjective(beta=beta))
    return np.stack(
        [kendall_tau(r[k], batch.scores, batch.mask).double().cpu().numpy() for k in ("plain", "asr")]
    )


def _pair_lists(trees: list[PreferenceList], rng: np.random.Generator) -> list[PreferenceList]:
    """Two-member lists (best, a uniformly drawn strictly worse member) from each tree."""
    out = []
    for t in trees:
        worse = [i for i, s in enumerate(t.scores) if s < max(t.scores)]
        out.append(t.subset([t.best, int(rng.choice(worse))]))
    return out


def pair_check(
    policy: torch.nn.Module, ref: torch.nn.Module, data: _Data, cfg: Config, seed: int, device: str
) -> dict[str, float]:
    """|TPO loss − DPO loss| on the same batch of two-member lists, at a trained policy."""
    pairs = _pair_lists(data.test_trees, np.random.default_rng(seed + 7))
    batch = encode_lists(data.tok, pairs, max_length=cfg.max_length, device=device)
    b = cfg.default_beta
    policy.eval()
    with torch.no_grad():
        dpo = preference_loss(policy, ref, batch, DPOObjective(beta=b, pair_sampling="best_vs_worst"))
        unit = preference_loss(policy, ref, batch, TPOObjective(beta=b, use_asr=False, use_lambda=False))
        lam = preference_loss(policy, ref, batch, TPOObjective(beta=b, use_asr=False, normalize="lambda"))
        asr = preference_loss(policy, ref, batch, TPOObjective(beta=b))
    return {
        "n_lists": float(len(pairs)),
        "dpo_loss": float(dpo),
        "abs_diff_lambda_off": abs(float(unit) - float(dpo)),
        "abs_diff_lambda_normalized": abs(float(lam) - float(dpo)),
        "abs_diff_with_asr": abs(float(asr) - float(dpo)),
    }


def _prepare(cfg: Config, seed: int, device: str) -> tuple[torch.nn.Module, _Data, Reference]:
    train_p, dev_p, test_p = split_problems([cfg.n_train, cfg.n_dev, cfg.n_test], seed, cfg.spec)
    rng = np.random.default_rng(seed)
    prompts, targets = sft_mixture(train_p, rng, cfg.gold_fraction)
    tok = char_tokenizer(ALPHABET)
    ref = tiny_causal_lm(
        tok,
        d_model=cfg.d_model,
        n_layer=cfg.n_layer,
        n_head=cfg.n_head,
        max_positions=cfg.max_length,
        seed=seed,
        device=device,
    )
    t0 = time.perf_counter()
    sft = TrainConfig(
        steps=cfg.sft_steps,
        batch_size=cfg.sft_batch,
        lr=cfg.sft_lr,
        warmup_steps=min(20, cfg.sft_steps),
        seed=seed,
    )
    losses = train_causal_lm(
        ref, tok, prompts, targets, sft, max_length=cfg.max_length, device=device, progress=False
    )
    step_s = (time.perf_counter() - t0) / cfg.sft_steps
    ref.eval()
    train_trees = [make_tree(p, rng, cfg.n_branches) for p in train_p]
    dev_trees = [make_tree(p, rng, cfg.n_branches) for p in dev_p]
    test_trees = [make_tree(p, rng, cfg.n_branches) for p in test_p]
    test_batch = encode_lists(tok, test_trees, max_length=cfg.max_length, device=device)
    dev_batch = encode_lists(tok, dev_trees, max_length=cfg.max_length, device=device) if dev_trees else None
    data = _Data(tok, train_trees, dev_p, test_p, test_trees, test_batch, dev_batch)
    ans = answers(ref, tok, test_p, device)
    with torch.no_grad():  # how well the reference's own log-likelihood ranks the lists
        b, n, _ = test_batch.shape
        ll, _ = sequence_logprobs(ref, test_batch.flat())
        tau_ll = kendall_tau(ll.reshape(b, n), test_batch.scores, test_batch.mask)
    tau = float(tau_ll[torch.isfinite(tau_ll)].mean())
    return ref, data, Reference(ans[0], ans[1], tau, float(np.mean(losses[-10:])), step_s)


def train_method(
    ref: torch.nn.Module,
    data: _Data,
    cfg: Config,
    method: str,
    lr: float,
    beta: float,
    s: int,
    seed: int,
    device: str,
) -> tuple[torch.nn.Module, list[float], float, list[float]]:
    """Train ``method`` from the reference for the config's budget: (policy, losses, s/step, curve)."""
    policy = copy.deepcopy(ref)
    po = TrainConfig(
        steps=cfg.po_steps,
        batch_size=cfg.po_batch,
        lr=lr,
        warmup_steps=min(cfg.po_warmup, cfg.po_steps),
        seed=seed + 1000 * s,
    )
    curve: list[float] = []
    t0 = time.perf_counter()
    if METHODS[method][1] is None:  # SFT on each tree's best trajectory, same steps and lr
        best = [t.responses[t.best] for t in data.train_trees]
        prompts = [t.prompt for t in data.train_trees]
        losses = train_causal_lm(
            policy, data.tok, prompts, best, po, max_length=cfg.max_length, device=device, progress=False
        )
    else:

        def on_step(step: int, model: torch.nn.Module) -> None:
            if data.dev_batch is not None and step > 0:
                curve.append(float(np.nanmean(list_taus(model, ref, data.dev_batch, beta)[0])))

        losses = train_preference(
            policy,
            ref,
            data.tok,
            data.train_trees,
            METHODS[method][1](beta),
            po,
            max_length=cfg.max_length,
            device=device,
            callback=on_step if cfg.curve_every > 0 else None,
            callback_every=cfg.curve_every,
        )
    policy.eval()
    return policy, losses, (time.perf_counter() - t0) / cfg.po_steps, curve


def run_records(config: Config, *, seed: int = 0, device: str = "cpu") -> Records:
    """SFT, tuning on dev, paired seeds, per-problem scores. Runs on ``config.torch_threads`` threads."""
    cfg = config
    with torch_threads(max(1, cfg.torch_threads)):
        ref, data, reference = _prepare(cfg, seed, device)
        kept: dict[tuple[str, float, float], tuple[Any, ...]] = {}

        def dev_accuracy(method: str, setting: Mapping[str, Any]) -> float:
            lr, beta = float(setting["lr"]), float(setting["beta"])
            out = train_method(ref, data, cfg, method, lr, beta, 0, seed, device)
            kept[(method, lr, beta)] = out
            return float(answers(out[0], data.tok, data.dev_p, device)[0].mean())

        grid = {"lr": list(cfg.lrs), "beta": list(cfg.betas)}
        budget = {"steps": cfg.po_steps, "lists_per_step": cfg.po_batch}
        tuning = tune(dev_accuracy, list(TUNED), grid, fixed=budget)
        runs: dict[str, list[MethodRun]] = {m: [] for m in cfg.methods}
        check: dict[str, float] = {}
        jobs = [(s, m) for s in range(cfg.n_seeds) for m in cfg.methods]
        for s, m in track(jobs, desc="tpo reproduce"):
            lr, beta = (
                (float(tuning[m].best["lr"]), float(tuning[m].best["beta"]))
                if m in tuning
                else (cfg.default_lr, cfg.default_beta)
            )
            hit = kept.pop((m, lr, beta), None) if s == 0 else None  # seed 0: the tuning run itself
            policy, losses, step_s, curve = hit or train_method(ref, data, cfg, m, lr, beta, s, seed, device)
            ans = answers(policy, data.tok, data.test_p, device)
            taus = list_taus(policy, ref, data.test_batch, beta)
            last = float(np.mean(losses[-10:]))
            runs[m].append(
                MethodRun(
                    method=m,
                    seed=seed + 1000 * s,
                    lr=lr,
                    beta=beta,
                    correct=ans[0],
                    score=ans[1],
                    tau_plain=taus[0],
                    tau_asr=taus[1],
                    first_loss=float(losses[0]),
                    last_loss=last,
                    step_s=step_s,
                    curve=tuple(curve),
                )
            )
            if m == "dpo" and s == 0:
                check = pair_check(policy, ref, data, cfg, seed, device)
        kept.clear()
    return Records(cfg, seed, reference, tuning, {m: tuple(v) for m, v in runs.items()}, check)


def report(rec: Records) -> Report:
    """Claims, metrics, tables and notes, from the records only."""
    from tpo.reproduce.claims import claims
    from tpo.reproduce.tables import metrics, notes, tables

    return Report(metrics=metrics(rec), claims=claims(rec), tables=tables(rec), notes=notes(rec))


def run(config: Config, *, seed: int = 0, device: str = "cpu") -> Report:
    """SFT the reference, tune and train every method from it, evaluate, check the claims."""
    return report(run_records(config, seed=seed, device=device))
