"""The small-scale reproduction: TPO vs DPO on programmatic step-by-step arithmetic preference trees.

Pipeline (one ``run``): draw disjoint train/dev/test problems; build a character tokenizer and a tiny GPT-2
(:mod:`paperkit.lm`); SFT it on a 70/30 mix of gold and slipped solutions (the reference policy, which errs);
build a preference tree per problem (gold + slipped branches + one wrong trajectory, scored by exact
correctness); then, from the same reference and for the same number of optimiser steps on the same trees,
train each method (DPO, TPO and ablations) and measure on held-out trees how well its implicit reward ranks
the list (Kendall τ-b against the scores) and its greedy final-answer accuracy.

``run(config, seed=..., device=...)`` returns a :class:`paperkit.Report`; ``plots(report)`` draws it.
"""

from __future__ import annotations

import copy
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from matplotlib.figure import Figure
from paperkit import Claim, Report, torch_threads, track
from paperkit.lm import (
    TrainConfig,
    char_tokenizer,
    generate,
    sequence_logprobs,
    tiny_causal_lm,
    train_causal_lm,
)

from tpo.arith import ALPHABET, ArithProblem, ArithSpec, is_correct, make_tree, score_response, sft_mixture
from tpo.arith import split_problems as _split
from tpo.data import PreferenceList
from tpo.logprobs import ListBatch, encode_lists
from tpo.metrics import kendall_tau
from tpo.trainer import (
    DPOObjective,
    DPOPLObjective,
    TPOObjective,
    implicit_rewards,
    preference_loss,
    train_preference,
)

#: method name -> (label, objective factory of beta)
METHODS: dict[str, tuple[str, Any]] = {
    "dpo": ("DPO (one random ordered pair a list)", lambda b: DPOObjective(beta=b)),
    "dpo_best_vs_worst": (
        "DPO (best vs worst, as the official baseline)",
        lambda b: DPOObjective(beta=b, pair_sampling="best_vs_worst"),
    ),
    "tpo": (
        "TPO (PLR with λ-weights + ASR 1+cos, reference weight 2 as in the official loss.py)",
        lambda b: TPOObjective(beta=b),
    ),
    "tpo_no_asr": ("TPO w/o ASR (LiPO-λ)", lambda b: TPOObjective(beta=b, use_asr=False)),
    "tpo_no_lambda": ("TPO w/o λ-weights (Δ ≡ 1)", lambda b: TPOObjective(beta=b, use_lambda=False)),
    "tpo_one_minus_cos": (
        "TPO with ASR 1−cos (reference weight 1)",
        lambda b: TPOObjective(beta=b, step_weight="one_minus_cos", reference_weight="one"),
    ),
    "tpo_official_reward": (
        "TPO with the official loss.py reward (step means, reference weight 2)",
        lambda b: TPOObjective(beta=b, aggregate="step_mean", reference_weight="formula"),
    ),
    "tpo_ref_weight_1": (
        "TPO with the reference's own step weights 1 (the spec's reading)",
        lambda b: TPOObjective(beta=b, reference_weight="one"),
    ),
    "dpo_pl": ("DPO-PL (Plackett–Luce)", lambda b: DPOPLObjective(beta=b)),
    "sft_best": ("SFT on the best trajectory of each tree (cross-entropy)", None),
}


def _default_spec() -> ArithSpec:
    return ArithSpec(min_steps=2, max_steps=3, max_operand=9, ops="+-*", max_abs_value=9, min_value=0)


@dataclass(frozen=True)
class Config:
    """The reproduction's scale and settings (defaults are the full run).

    Attributes:
        n_train, n_dev, n_test: problems (one tree each) for SFT + preference training, learning curves,
            and the final held-out evaluation; disjoint by operand tuple.
        spec: the problem distribution (K = 2-3 steps, operands 1-9, every intermediate result a
            single digit 0-9: what a 110k-parameter character model learns in a few hundred steps).
        n_branches: slipped branches a tree (list size N = n_branches + 2: gold and one wrong trajectory).
        gold_fraction: share of gold solutions in the SFT data (spec: 70/30 gold/slipped).
        d_model, n_layer, n_head, max_length: the tiny GPT-2 (paperkit.lm) and its context.
        sft_steps, sft_batch, sft_lr: SFT of the reference policy.
        po_steps, po_batch, po_lr, po_warmup, beta: every preference method (spec: β = 0.1, lr 1e-4,
            same steps and trees for all methods).
        methods: the methods trained (names of ``METHODS``); must include ``dpo`` and ``tpo``.
        n_seeds: preference-training seeds (data order and pair draws) from the one reference policy.
        curve_every: evaluate dev τ every this many steps for the learning-curve plot (0: off).
        accuracy_claims: check the accuracy claims (the spec checks them on the full run's seed mean).
        torch_threads: intra-op threads while running (1 is fastest for these tiny matrices and keeps
            the run stable on a shared machine).
        tau_margin, acc_sft_margin, acc_dpo_margin: the claims' margins, frozen from the calibration
            run recorded in the README.
    """

    n_train: int = 1500
    n_dev: int = 100
    n_test: int = 400
    spec: ArithSpec = field(default_factory=_default_spec)
    n_branches: int = 3
    gold_fraction: float = 0.7
    d_model: int = 64
    n_layer: int = 2
    n_head: int = 4
    max_length: int = 96
    sft_steps: int = 400
    sft_batch: int = 32
    sft_lr: float = 1e-2
    po_steps: int = 120
    po_batch: int = 8
    po_lr: float = 1e-4
    po_warmup: int = 10
    beta: float = 0.1
    methods: tuple[str, ...] = (
        "dpo",
        "dpo_best_vs_worst",
        "sft_best",
        "tpo",
        "tpo_no_asr",
        "tpo_no_lambda",
        "tpo_one_minus_cos",
        "tpo_ref_weight_1",
    )
    n_seeds: int = 3
    curve_every: int = 40
    accuracy_claims: bool = True
    torch_threads: int = 1
    tau_margin: float = 0.05
    acc_sft_margin: float = 0.03
    acc_dpo_margin: float = 0.0

    def __post_init__(self) -> None:
        unknown = set(self.methods) - set(METHODS)
        if unknown:
            raise ValueError(f"unknown methods {sorted(unknown)}; expected names from {sorted(METHODS)}")
        if not {"dpo", "tpo"} <= set(self.methods):
            raise ValueError("methods must include 'dpo' and 'tpo' (the claims compare them)")
        for name in ("n_train", "n_test", "sft_steps", "sft_batch", "po_steps", "po_batch", "n_seeds"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
        if self.n_branches < 1:
            raise ValueError(f"n_branches must be >= 1, got {self.n_branches}")
        if not (self.beta > 0 and math.isfinite(self.beta)):
            raise ValueError(f"beta must be positive, got {self.beta}")

    @classmethod
    def quick(cls) -> Config:
        """About a minute on 2 cores: one seed, DPO and TPO, 100 preference steps, 300 test trees."""
        return cls(
            n_test=300,
            po_steps=100,
            methods=("dpo", "tpo"),
            n_seeds=1,
            curve_every=25,
            accuracy_claims=False,
        )

    @classmethod
    def full(cls) -> Config:
        """About 7 minutes on 2 cores: eight methods, 3 seeds, 120 preference steps, 400 test trees."""
        return cls()

    @classmethod
    def smoke(cls) -> Config:
        """Seconds: a few dozen problems and steps; its claims are not meaningful."""
        return cls(
            n_train=40,
            n_dev=8,
            n_test=16,
            sft_steps=5,
            sft_batch=8,
            po_steps=3,
            po_batch=2,
            po_warmup=1,
            methods=("dpo", "tpo"),
            n_seeds=1,
            curve_every=0,
            accuracy_claims=False,
        )


def accuracy(
    model: torch.nn.Module, tokenizer: Any, problems: list[ArithProblem], device: str
) -> dict[str, float]:
    """Greedy final-answer accuracy and mean exact-correctness score of the model's own solutions."""
    outs = generate(
        model, tokenizer, [p.prompt for p in problems], max_new_tokens=64, batch_size=256, device=device
    )
    return {
        "accuracy": float(np.mean([is_correct(p, o) for p, o in zip(problems, outs, strict=True)])),
        "mean_score": float(np.mean([score_response(p, o) for p, o in zip(problems, outs, strict=True)])),
    }


def _taus(policy: torch.nn.Module, ref: torch.nn.Module, batch: ListBatch, beta: float) -> dict[str, float]:
    r = implicit_rewards(policy, ref, batch, beta=beta, asr=TPOObjective(beta=beta))
    out = {}
    for key in ("plain", "asr"):
        tau = kendall_tau(r[key], batch.scores, batch.mask)
        out[f"tau_{key}"] = float(tau[torch.isfinite(tau)].mean())
    return out


def _pair_lists(trees: list[PreferenceList], rng: np.random.Generator) -> list[PreferenceList]:
    """Two-member lists (best, a uniformly drawn strictly worse member) from each tree."""
    out = []
    for t in trees:
        worse = [i for i, s in enumerate(t.scores) if s < max(t.scores)]
        out.append(t.subset([t.best, int(rng.choice(worse))]))
    return out


def _equality_check(
    policy: torch.nn.Module,
    ref: torch.nn.Module,
    tok: Any,
    trees: list[PreferenceList],
    cfg: Config,
    seed: int,
    device: str,
) -> dict[str, float]:
    """|TPO loss − DPO loss| on the same batch of two-member lists, at a trained policy."""
    pairs = _pair_lists(trees, np.random.default_rng(seed + 7))
    batch = encode_lists(tok, pairs, max_length=cfg.max_length, device=device)
    policy.eval()
    with torch.no_grad():
        dpo = preference_loss(policy, ref, batch, DPOObjective(beta=cfg.beta, pair_sampling="best_vs_worst"))
        tpo_unit = preference_loss(
            policy, ref, batch, TPOObjective(beta=cfg.beta, use_asr=False, use_lambda=False)
        )
        tpo_lam = preference_loss(
            policy, ref, batch, TPOObjective(beta=cfg.beta, use_asr=False, normalize="lambda")
        )
        tpo_asr = preference_loss(policy, ref, batch, TPOObjective(beta=cfg.beta))
    return {
        "n_lists": len(pairs),
        "dpo_loss": float(dpo),
        "abs_diff_lambda_off": abs(float(tpo_unit) - float(dpo)),
        "abs_diff_lambda_normalized": abs(float(tpo_lam) - float(dpo)),
        "abs_diff_with_asr": abs(float(tpo_asr) - float(dpo)),
    }


def run(config: Config, *, seed: int = 0, device: str = "cpu") -> Report:
    """SFT the reference, train every method from it on the same trees, evaluate, check the claims."""
    with torch_threads(max(1, config.torch_threads)):
        return _run(config, seed=seed, device=device)


def _run(config: Config, *, seed: int, device: str) -> Report:
    cfg = config
    train_p, dev_p, test_p = _split([cfg.n_train, cfg.n_dev, cfg.n_test], seed, cfg.spec)
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
    sft_losses = train_causal_lm(
        ref,
        tok,
        prompts,
        targets,
        TrainConfig(
            steps=cfg.sft_steps,
            batch_size=cfg.sft_batch,
            lr=cfg.sft_lr,
            warmup_steps=min(20, cfg.sft_steps),
            seed=seed,
        ),
        max_length=cfg.max_length,
        device=device,
        progress=False,
    )
    sft_time = time.perf_counter() - t0
    ref.eval()
    train_trees = [make_tree(p, rng, cfg.n_branches) for p in train_p]
    dev_trees = [make_tree(p, rng, cfg.n_branches) for p in dev_p]
    test_trees = [make_tree(p, rng, cfg.n_branches) for p in test_p]
    test_batch = encode_lists(tok, test_trees, max_length=cfg.max_length, device=device)
    dev_batch = encode_lists(tok, dev_trees, max_length=cfg.max_length, device=device) if dev_trees else None
    sft_eval = accuracy(ref, tok, test_p, device)
    # context: how well the reference's own log-likelihood ranks the lists (its implicit rewards are all 0)
    with torch.no_grad():
        b, n, _ = test_batch.shape
        ll, _ = sequence_logprobs(ref, test_batch.flat())
        tau_ll = kendall_tau(ll.reshape(b, n), test_batch.scores, test_batch.mask)
    sft_eval["tau_loglik"] = float(tau_ll[torch.isfinite(tau_ll)].mean())

    runs: dict[str, list[dict[str, Any]]] = {m: [] for m in cfg.methods}
    curves: dict[str, list[list[float]]] = {m: [] for m in cfg.methods}
    equality: dict[str, float] = {}
    step_times: dict[str, list[float]] = {m: [] for m in cfg.methods}  # tables only: metrics stay exact
    jobs = [(s, m) for s in range(cfg.n_seeds) for m in cfg.methods]
    for s, method in track(jobs, desc="tpo reproduce"):
        policy = copy.deepcopy(ref)
        curve: list[float] = []

        def on_step(step: int, model: torch.nn.Module, curve: list[float] = curve) -> None:
            if dev_batch is not None:
                curve.append(_taus(model, ref, dev_batch, cfg.beta)["tau_plain"] if step > 0 else math.nan)

        po_config = TrainConfig(
            steps=cfg.po_steps,
            batch_size=cfg.po_batch,
            lr=cfg.po_lr,
            warmup_steps=min(cfg.po_warmup, cfg.po_steps),
            seed=seed + 1000 * s,
        )
        t0 = time.perf_counter()
        if method == "sft_best":  # cross-entropy on each tree's best trajectory, same steps and lr
            best = [t.responses[t.best] for t in train_trees]
            losses = train_causal_lm(
                policy,
                tok,
                [t.prompt for t in train_trees],
                best,
                po_config,
                max_length=cfg.max_length,
                device=device,
                progress=False,
            )
            if cfg.curve_every > 0:
                curve.extend([math.nan] * (cfg.po_steps // cfg.curve_every + 1))
        else:
            losses = train_preference(
                policy,
                ref,
                tok,
                train_trees,
                METHODS[method][1](cfg.beta),
                po_config,
                max_length=cfg.max_length,
                device=device,
                callback=on_step if cfg.curve_every > 0 else None,
                callback_every=cfg.curve_every,
            )
        train_time = time.perf_counter() - t0
        policy.eval()
        row: dict[str, Any] = {"seed": seed + 1000 * s, **_taus(policy, ref, test_batch, cfg.beta)}
        row.update(accuracy(policy, tok, test_p, device))
        row.update(first_loss=losses[0], last_loss=float(np.mean(losses[-10:])))
        runs[method].append(row)
        step_times[method].append(train_time / cfg.po_steps)
        curves[method].append(curve)
        if method == "dpo" and s == 0:
            equality = _equality_check(policy, ref, tok, test_trees, cfg, seed, device)

    def mean(method: str, key: str) -> float:
        return float(np.mean([r[key] for r in runs[method]]))

    tau_gap = mean("tpo", "tau_plain") - mean("dpo", "tau_plain")
    seeds_note = f"{cfg.n_seeds} seed{'s' if cfg.n_seeds > 1 else ''} (mean)"
    scale = (
        f"{cfg.n_test} held-out trees (N = {cfg.n_branches + 2}), "
        f"{cfg.po_steps} steps x {cfg.po_batch} lists, β = {cfg.beta}, lr {cfg.po_lr:g}, {seeds_note}"
    )
    claims = [
        Claim.at_most(
            "tpo-equals-dpo-on-pairs",
            "With two-member lists TPO's ranking loss is exactly DPO's (one pair; Δ ≡ 1 or Δ-normalised)",
            f"max |L_TPO − L_DPO| on the same batch of {equality.get('n_lists', 0)} two-member held-out "
            "lists at the trained DPO policy (TPO w/o ASR; λ-weights off, and on with Δ-normalisation)",
            max(
                equality.get("abs_diff_lambda_off", math.nan),
                equality.get("abs_diff_lambda_normalized", math.nan),
            ),
            1e-6,
            paper="exact (LiPO: DPO is the list-size-2 case)",
            details={
                "dpo_loss": equality.get("dpo_loss", math.nan),
                "abs_diff_with_asr": equality.get("abs_diff_with_asr", math.nan),
            },
            note="with ASR on the losses differ (ASR weighs the reference's steps 2, the other's 1 + cos)",
        ),
        Claim.at_least(
            "tpo-ranks-better-than-dpo",
            "TPO's implicit rewards rank held-out preference lists better than DPO's",
            f"mean Kendall τ-b(β Σ_t ℓ_t, score) of TPO minus that of DPO; {scale}",
            tau_gap,
            cfg.tau_margin,
            paper="TPO > DPO (list ranking is TPO's objective)",
            details={
                "tau_tpo": mean("tpo", "tau_plain"),
                "tau_dpo": mean("dpo", "tau_plain"),
                "tau_asr_tpo": mean("tpo", "tau_asr"),
                "tau_asr_dpo": mean("dpo", "tau_asr"),
                **{f"tau_tpo_seed{i}": r["tau_plain"] for i, r in enumerate(runs["tpo"])},
                **{f"tau_dpo_seed{i}": r["tau_plain"] for i, r in enumerate(runs["dpo"])},
            },
            note="margin frozen from the calibration run (README); a negative observed gap fails",
        ),
    ]
    if cfg.accuracy_claims:
        claims += [
            Claim.at_least(
                "tpo-accuracy-above-sft",
                "TPO improves greedy final-answer accuracy over the SFT reference it starts from",
                f"accuracy(TPO) − accuracy(SFT reference), greedy decoding; {scale}",
                mean("tpo", "accuracy") - sft_eval["accuracy"],
                cfg.acc_sft_margin,
                paper="TPO > SFT on MATH/SVAMP/ASDiv/GSM-Plus (Table 1)",
                details={"acc_tpo": mean("tpo", "accuracy"), "acc_sft": sft_eval["accuracy"]},
            ),
            Claim.at_least(
                "tpo-accuracy-not-below-dpo",
                "TPO's greedy final-answer accuracy is not below DPO's",
                f"accuracy(TPO) − accuracy(DPO); {scale}",
                mean("tpo", "accuracy") - mean("dpo", "accuracy"),
                cfg.acc_dpo_margin,
                paper="TPO > DPO on all five LLMs and four datasets",
                details={
                    "acc_tpo": mean("tpo", "accuracy"),
                    "acc_dpo": mean("dpo", "accuracy"),
                    **{f"acc_tpo_seed{i}": r["accuracy"] for i, r in enumerate(runs["tpo"])},
                    **{f"acc_dpo_seed{i}": r["accuracy"] for i, r in enumerate(runs["dpo"])},
                },
            ),
        ]

    table = [
        {
            "method": "SFT reference",
            "τ plain": math.nan,
            "τ ASR": math.nan,
            "accuracy": sft_eval["accuracy"],
            "mean score": sft_eval["mean_score"],
            "final loss": float(np.mean(sft_losses[-10:])),
            "s/step": sft_time / cfg.sft_steps,
        }
    ]
    for m in cfg.methods:
        table.append(
            {
                "method": m,
                "τ plain": mean(m, "tau_plain"),
                "τ ASR": mean(m, "tau_asr"),
                "accuracy": mean(m, "accuracy"),
                "mean score": mean(m, "mean_score"),
                "final loss": mean(m, "last_loss"),
                "s/step": float(np.mean(step_times[m])),
            }
        )
    per_seed = [
        {
            "method": m,
            "seed": r["seed"],
            "τ plain": r["tau_plain"],
            "τ ASR": r["tau_asr"],
            "accuracy": r["accuracy"],
        }
        for m in cfg.methods
        for r in runs[m]
    ]
    metrics = {
        "sft": {**sft_eval, "final_loss": float(np.mean(sft_losses[-10:]))},
        "methods": {m: {"label": METHODS[m][0], "runs": runs[m]} for m in cfg.methods},
        "curves": {m: curves[m] for m in cfg.methods},
        "curve_steps": [i * cfg.curve_every for i in range(cfg.po_steps // cfg.curve_every + 1)]
        if cfg.curve_every
        else [],
        "pair_check": equality,
    }
    notes = [
        "τ plain: Kendall τ-b between each list member's implicit reward β Σ_t ℓ_t and its score, "
        "averaged over held-out lists; the same reward definition for every method, and it needs no label.",
        "τ ASR: the ASR-weighted reward r̃ with the best-scored member as the reference trajectory; it "
        "uses the labels (the best member is the reference every other member is compared with), so it is "
        "reported but not used for a claim.",
        f"SFT reference: log-likelihood ranks the test lists with τ = {sft_eval['tau_loglik']:.3f}; "
        "its implicit rewards are all 0.",
        "All methods start from the same SFT reference, see the same trees in the same order per seed, "
        "and take the same number of optimiser steps with the same learning rate and β.",
    ]
    return Report(
        metrics=metrics,
        claims=claims,
        tables={"Methods (mean over seeds)": table, "Per seed": per_seed},
        notes=notes,
    )


def plots(report: Report) -> dict[str, Figure]:
    """Held-out τ and accuracy per method (bars), and dev τ along preference training (curves)."""
    methods: Mapping[str, Any] = report.metrics["methods"]
    sft = report.metrics["sft"]
    names = list(methods)
    figs: dict[str, Figure] = {}
    fig = Figure(figsize=(10, 4))
    ax1, ax2 = fig.subplots(1, 2)
    x = np.arange(len(names))
    for ax, key, label in (
        (ax1, "tau_plain", "Kendall τ-b (implicit reward vs score)"),
        (ax2, "accuracy", "greedy accuracy"),
    ):
        vals = [[r[key] for r in methods[m]["runs"]] for m in names]
        ax.bar(
            x,
            [np.mean(v) for v in vals],
            yerr=[np.std(v) if len(v) > 1 else 0 for v in vals],
            color="C0",
            alpha=0.8,
            label="mean over seeds (± std)",
        )
        for i, v in enumerate(vals):
            ax.plot([i] * len(v), v, "k.", ms=4)
        if key == "accuracy":
            ax.axhline(sft["accuracy"], color="C3", ls="--", label="SFT reference")
        ax.set_xticks(x, names, rotation=35, ha="right", fontsize=8)
        ax.set_ylabel(label)
        ax.set_xlabel("method")
        ax.legend(fontsize=7)
        ax.grid(True, axis="y", alpha=0.3)
    ax1.set_title("held-out list ranking (higher is better)", fontsize=9)
    ax2.set_title("held-out final-answer accuracy", fontsize=9)
    figs["methods"] = fig
    steps = report.metrics.get("curve_steps") or []
    if steps:
        fig = Figure(figsize=(6, 4))
        ax = fig.add_subplot()
        for i, m in enumerate(names):
            c = np.array(report.metrics["curves"][m], dtype=float)
            if c.size == 0 or not np.isfinite(c).any():  # sft_best has no preference curve
                continue
            c = c[:, 1:]  # step 0: every implicit reward is 0, τ undefined
            mu = c.mean(axis=0)
            ax.plot(steps[1 : 1 + len(mu)], mu, color=f"C{i}", label=m)
            if c.shape[0] > 1:
                sd = c.std(axis=0)
                ax.fill_between(steps[1 : 1 + len(mu)], mu - sd, mu + sd, color=f"C{i}", alpha=0.15)
        ax.set(
            xlabel="preference-optimisation steps",
            ylabel="dev Kendall τ-b (plain implicit reward)",
            title="ranking quality during training (band: ± std over seeds)",
        )
        ax.legend(fontsize=7)
        ax.grid(True, alpha=0.3)
        figs["tau_curves"] = fig
    return figs
