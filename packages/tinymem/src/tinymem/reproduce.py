"""The small-scale reproduction: train a TinyMem model that memorises planted noised sequences, apply the
mitigation methods over their hyper-parameter grids, select each method's configuration with one rule, and
check the paper's claims.

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

from tinymem.data import DataConfig, build_data
from tinymem.methods import METHODS, UNLEARNING, MitigationContext, finetune_rows, select_best
from tinymem.metrics import MemResult, next_token_scores, percent_memorized, token_accuracy
from tinymem.model import build_model, n_params, tinymem_config
from tinymem.train import TrainSpec, finetune, train_lm
from tinymem.unlearn import ablate_neurons

# Subnet / BalancedSubnet ratios in the full run: x2 steps from 0.005 past 0.05 (the official grid's top).
SUBNET_RATIOS = (0.005, 0.01, 0.02, 0.04, 0.08)


def _quick_data() -> DataConfig:
    return DataConfig(n_main=300, n_extra=60, n_test=100, n_noise=40, max_ctx=40, n_ft_extra=60)


@dataclass(frozen=True)
class Config:
    """Scale and settings of one reproduction (defaults: the full run).

    Attributes:
        data: the TinyMem data (increment family, L = 8 numbers, P = K = 20).
        n_layer, n_embd, n_head: the TinyMem GPT-2 (paper n_embd 128; ours 64 to fit 2 shared cores).
        epochs, lr, batch_size: base training (AdamW, warm-up + cosine from paperkit.lm).
        methods: the mitigations run (names of ``tinymem.methods.METHODS``).
        grids: per-method grid overrides (name -> values); others use the method's own 3-point grid.
        unlearn_epochs: Subnet / BalancedSubnet epochs (paper 5). slim_epochs: Slimming / HC steps.
        ft_epochs: fine-tuning grid (epochs, evaluated along one run). max_acc_drop: the selection budget.
        claims_full: check the full-mode claims (4: best within budget, regularizers weak; 5: wall-clock).
        torch_threads: intra-op threads (1: stable on a shared machine).
        Margins (frozen from the calibration run in the README): mem_bound, drop_bound (claim 2),
        tie_points (claim 4), reg_keep (claim 4b), speedup (claim 5).
    """

    data: DataConfig = field(default_factory=DataConfig)
    n_layer: int = 2
    n_embd: int = 64
    n_head: int = 4
    epochs: int = 40
    lr: float = 5e-3
    batch_size: int = 128
    methods: tuple[str, ...] = tuple(METHODS)
    grids: tuple[tuple[str, tuple[float, ...]], ...] = (
        ("spectral_norm", (1e-2,)),
        ("loss_truncation", (0.1,)),
        ("example_tied_dropout", (0.1,)),
        ("subnet", SUBNET_RATIOS),
        ("balanced_subnet", SUBNET_RATIOS),
        ("balanced_subnet_label", SUBNET_RATIOS),
    )
    unlearn_epochs: int = 5
    slim_epochs: int = 200
    ft_epochs: tuple[int, ...] = (1, 2, 4)
    max_acc_drop: float = 5.0
    claims_full: bool = True
    torch_threads: int = 1
    mem_bound: float = 10.0
    drop_bound: float = 5.0
    tie_points: float = 2.0
    reg_keep: float = 0.5
    speedup: float = 1.0

    def __post_init__(self) -> None:
        unknown = set(self.methods) - set(METHODS)
        if unknown:
            raise ValueError(f"unknown methods {sorted(unknown)}; expected names from {sorted(METHODS)}")
        if not {"subnet", "balanced_subnet"} <= set(self.methods):
            raise ValueError("methods must include 'subnet' and 'balanced_subnet' (the claims compare them)")
        if self.epochs < 1 or self.unlearn_epochs < 1:
            raise ValueError("epochs and unlearn_epochs must be >= 1")

    @classmethod
    def quick(cls) -> Config:
        """About 40 s quiet on one thread: 30 epochs, Subnet and BalancedSubnet at ratio 0.01, 3 epochs."""
        return cls(
            data=_quick_data(),
            epochs=30,
            methods=("subnet", "balanced_subnet", "balanced_subnet_label"),
            grids=(("subnet", (0.01,)), ("balanced_subnet", (0.01,)), ("balanced_subnet_label", (0.01,))),
            unlearn_epochs=3,
            claims_full=False,
        )

    @classmethod
    def full(cls) -> Config:
        """About 5-8 min quiet: the spec's data sizes (``DataConfig()``), all 17 methods plus BalancedSubnet
        under the older loss (regularizers at one setting, Subnet / BalancedSubnet over ``SUBNET_RATIOS``,
        the rest over their 3-point grids)."""
        return cls()

    @classmethod
    def smoke(cls) -> Config:
        """Seconds: tiny data and 2 epochs; its claims are not meaningful."""
        return cls(
            data=DataConfig(
                n_main=40, n_extra=8, n_test=16, n_noise=8, max_ctx=40, duplicates=2, n_ft_extra=8
            ),
            n_embd=16,
            epochs=2,
            methods=("subnet", "balanced_subnet"),
            grids=(("subnet", (0.01,)), ("balanced_subnet", (0.01,))),
            unlearn_epochs=1,
            claims_full=False,
        )

    def grid(self, name: str) -> tuple[float, ...]:
        return dict(self.grids).get(name, METHODS[name].grid)


def _evaluate(
    model: torch.nn.Module, data: Any, base_acc: float | None = None, mem: MemResult | None = None
) -> dict[str, float]:
    """Memorisation and clean-test scores of ``model``; ``mem``: its memorisation result if already known."""
    c = data.config
    r = mem or percent_memorized(model, data.noised, data.clean_twins, c.prompt_len, c.window)
    main = next_token_scores(model, data.test[c.main_k])
    acc_k = [main.accuracy if k == c.main_k else token_accuracy(model, t) for k, t in data.test.items()]
    return {
        "mem": r.percent_memorized,
        "clean_correct": r.percent_clean_correct,
        "acc": main.accuracy,
        "acc_real_tokens": main.accuracy_real_tokens,
        "acc_all_k": float(np.mean(acc_k)),
        "ppl": main.perplexity,
        "acc_drop": (base_acc - main.accuracy) if base_acc is not None else 0.0,
    }


def run(config: Config, *, seed: int = 0, device: str = "cpu") -> Report:
    """Train, mitigate, evaluate, select, check the claims."""
    with torch_threads(max(1, config.torch_threads)):
        return _run(config, seed=seed, device=device)


def _run(cfg: Config, *, seed: int, device: str) -> Report:
    data = build_data(cfg.data, seed)
    mcfg = tinymem_config(cfg.n_layer, n_embd=cfg.n_embd, n_head=cfg.n_head, n_positions=cfg.data.max_ctx)
    base = build_model(mcfg, seed=seed, device=device)
    spec = TrainSpec(epochs=cfg.epochs, lr=cfg.lr, batch_size=cfg.batch_size, seed=seed)
    t0 = time.process_time()
    losses = train_lm(base, data.train, spec, device=device)
    train_s = time.process_time() - t0
    base_mem = percent_memorized(base, data.noised, data.clean_twins, cfg.data.prompt_len, cfg.data.window)
    base_eval = _evaluate(base, data, mem=base_mem)
    mem_idx = base_mem.memorized_idx
    ctx = MitigationContext(
        data=data,
        base_model=base,
        mem=data.noised[mem_idx],
        clean=data.clean_train,
        train_spec=spec,
        model_config=mcfg,
        seed=seed,
        device=device,
        unlearn_epochs=cfg.unlearn_epochs,
        slim_epochs=cfg.slim_epochs,
    )
    rows: list[dict[str, Any]] = []
    ft_curves: dict[str, list[dict[str, float]]] = {}
    for name in track(cfg.methods, desc="tinymem methods"):
        m = METHODS[name]
        if m.family == "fine-tuning":
            rows_ft, curve = _finetune_sweep(ctx, name, cfg, base_eval["acc"])
            rows += rows_ft
            ft_curves[name] = curve
            continue
        score_fn = getattr(m.fn, "score_fn", None)
        scores, score_s = None, 0.0
        if score_fn is not None and len(ctx.mem):
            t0 = time.process_time()
            scores = score_fn(ctx)
            score_s = time.process_time() - t0
        for value in cfg.grid(name):
            t0 = time.process_time()
            model = ablate_neurons(base, scores, value) if scores is not None else m.fn(ctx, value)
            secs = time.process_time() - t0 + score_s
            ev = _evaluate(model, data, base_eval["acc"])
            rows.append(
                {"method": name, "family": m.family, "param": m.param, "value": value, "seconds": secs, **ev}
            )
    selected = {
        name: select_best([r for r in rows if r["method"] == name], max_acc_drop=cfg.max_acc_drop)
        for name in cfg.methods
    }
    claims = _claims(cfg, base_eval, rows, selected, ft_curves)
    table = [
        {
            "method": "none (base model)",
            "family": "-",
            "param": "-",
            "value": math.nan,
            "% memorised": base_eval["mem"],
            "acc k=7 (%)": base_eval["acc"],
            "acc drop (pts)": 0.0,
            "ppl": base_eval["ppl"],
            "seconds": train_s,
        }
    ]
    for name in cfg.methods:
        s = selected[name]
        if s is None:
            table.append(
                {
                    "method": name,
                    "family": METHODS[name].family,
                    "param": METHODS[name].param,
                    "value": math.nan,
                    "% memorised": math.nan,
                    "acc k=7 (%)": math.nan,
                    "acc drop (pts)": math.nan,
                    "ppl": math.nan,
                    "seconds": math.nan,
                }
            )
            continue
        table.append(
            {
                "method": name,
                "family": s["family"],
                "param": s["param"],
                "value": s["value"],
                "% memorised": s["mem"],
                "acc k=7 (%)": s["acc"],
                "acc drop (pts)": s["acc_drop"],
                "ppl": s["ppl"],
                "seconds": s["seconds"],
            }
        )
    sweep = [
        {
            "method": r["method"],
            "param": r["param"],
            "value": r["value"],
            "% memorised": r["mem"],
            "% clean-correct": r["clean_correct"],
            "acc k=7 (%)": r["acc"],
            "acc drop (pts)": r["acc_drop"],
            "acc all k (%)": r["acc_all_k"],
            "seconds": r["seconds"],
        }
        for r in rows
    ]
    strip = ("seconds",)
    metrics = {  # no wall-clock numbers here: metrics must be bit-identical across same-seed runs
        "base": {
            **base_eval,
            "final_loss": float(np.mean(losses[-5:])),
            "n_params": n_params(base),
            "n_eligible": int(data.eligible.sum()),
            "n_memorised": len(ctx.mem),
            "n_train_rows": len(data.train),
        },
        "rows": [{k: v for k, v in r.items() if k not in strip} for r in rows],
        "selected": {
            k: {kk: vv for kk, vv in v.items() if kk not in strip} if v is not None else None
            for k, v in selected.items()
        },
        "ft_curves": {
            k: [{kk: vv for kk, vv in c.items() if kk not in strip} for c in v] for k, v in ft_curves.items()
        },
    }
    notes = [
        f"{n_params(base)} parameters; {len(data.train)} training rows ({data.config.n_noise} noised × "
        f"{data.config.duplicates}); {int(data.eligible.sum())} eligible noised sequences, "
        f"{len(ctx.mem)} memorised "
        "by the base model (the unlearning memorised set).",
        "% memorised: greedy continuation of the clean prompt (P = 20 tokens) equals the noised training "
        "continuation on all K = 20 tokens. acc: official next-token accuracy on held-out k=7 sequences "
        "(every position, PAD targets included); acc drop = base acc − method acc (points).",
        f"Selection rule (every method): lowest % memorised with acc drop ≤ {cfg.max_acc_drop:g} points.",
        "seconds: process CPU time (time.process_time) of the mitigation itself (retraining for "
        "regularizers; scoring + ablation for neuron methods), single thread.",
    ]
    return Report(
        metrics=metrics,
        claims=claims,
        tables={"Selected configuration per method": table, "Every configuration": sweep},
        notes=notes,
    )


def _finetune_sweep(
    ctx: MitigationContext, name: str, cfg: Config, base_acc: float
) -> tuple[list[dict[str, Any]], list[dict[str, float]]]:
    """One fine-tuning run to max(ft_epochs) epochs, evaluated (untimed) after every epoch."""
    data = ctx.data
    rows_src = finetune_rows(data, name)
    model = copy.deepcopy(ctx.base_model)
    spe = math.ceil(len(rows_src) / ctx.train_spec.batch_size)
    clock = {"start": time.process_time(), "paused": 0.0}
    curve: list[dict[str, float]] = []
    rows: list[dict[str, Any]] = []

    def cb(step: int, m: torch.nn.Module) -> None:
        t_pause = time.process_time()
        secs = t_pause - clock["start"] - clock["paused"]
        ev = _evaluate(m, data, base_acc)
        epoch = step // spe
        curve.append({"epoch": epoch, "seconds": secs, "mem": ev["mem"], "acc_drop": ev["acc_drop"]})
        if epoch in cfg.ft_epochs:
            rows.append(
                {
                    "method": name,
                    "family": "fine-tuning",
                    "param": "epochs",
                    "value": float(epoch),
                    "seconds": secs,
                    **ev,
                }
            )
        clock["paused"] += time.process_time() - t_pause

    finetune(
        model,
        rows_src,
        epochs=max(cfg.ft_epochs),
        lr=ctx.train_spec.lr,
        batch_size=ctx.train_spec.batch_size,
        seed=ctx.seed,
        device=ctx.device,
        callback=cb,
        callback_every=spe,
    )
    return rows, curve


def _claims(
    cfg: Config,
    base: dict[str, float],
    rows: list[dict[str, Any]],
    selected: Mapping[str, Any],
    ft_curves: Mapping[str, Any],
) -> list[Claim]:
    def row(method: str, value: float) -> dict[str, Any]:
        return next(r for r in rows if r["method"] == method and r["value"] == value)

    bs_sel = selected.get("balanced_subnet")
    bs_any = min(
        (r for r in rows if r["method"] == "balanced_subnet"), key=lambda r: (r["mem"], r["acc_drop"])
    )
    bs = bs_sel if bs_sel is not None else bs_any
    claims = [
        Claim.at_least(
            "precondition-memorises",
            "The trained TinyMem model memorises the planted noised sequences and is accurate on clean data",
            "min(% memorised − 50, k=7 test accuracy − 90) of the unmitigated model (points above the spec's "
            "thresholds: ≥ 50 % memorised, ≥ 90 % accuracy); below 0 the run is invalid",
            min(base["mem"] - 50.0, base["acc"] - 90.0),
            0.0,
            paper="TinyMem models memorise noise and keep high accuracy (§3)",
            details={
                "percent_memorised": base["mem"],
                "accuracy": base["acc"],
                "acc_real_tokens": base["acc_real_tokens"],
            },
        ),
        Claim.at_most(
            "balanced-subnet-removes-memorisation",
            "BalancedSubnet removes (nearly) all memorised sequences at a small accuracy cost",
            f"max(% memorised − {cfg.mem_bound:g}, acc drop − {cfg.drop_bound:g}) of "
            "BalancedSubnet's selected "
            f"configuration (ratio {bs['value']:g}); ≤ 0 passes",
            max(bs["mem"] - cfg.mem_bound, bs["acc_drop"] - cfg.drop_bound),
            0.0,
            paper="≈0 % memorised, accuracy close to the base model (§5-6)",
            details={
                "percent_memorised": bs["mem"],
                "acc_drop": bs["acc_drop"],
                "ratio": bs["value"],
                "base_mem": base["mem"],
            },
        ),
    ]
    if any(r["method"] == "balanced_subnet_label" for r in rows):
        lab = selected.get("balanced_subnet_label") or min(
            (r for r in rows if r["method"] == "balanced_subnet_label"),
            key=lambda r: (r["mem"], r["acc_drop"]),
        )
        claims.append(
            Claim.at_most(
                "balanced-subnet-label-removes-memorisation",
                "BalancedSubnet under the older official loss mean(−B·label·L) removes (nearly) all "
                "memorised sequences at a small accuracy cost",
                f"max(% memorised − {cfg.mem_bound:g}, acc drop − {cfg.drop_bound:g}) of its selected "
                f"configuration (ratio {lab['value']:g}); ≤ 0 passes",
                max(lab["mem"] - cfg.mem_bound, lab["acc_drop"] - cfg.drop_bound),
                0.0,
                paper="≈0 % memorised, accuracy close to the base model (§5-6); which loss version the "
                "paper used is not stated",
                details={"percent_memorised": lab["mem"], "acc_drop": lab["acc_drop"], "ratio": lab["value"]},
            )
        )
    common = sorted(
        {r["value"] for r in rows if r["method"] == "subnet"}
        & {r["value"] for r in rows if r["method"] == "balanced_subnet"}
    )
    gaps = {v: row("subnet", v)["acc_drop"] - row("balanced_subnet", v)["acc_drop"] for v in common}
    ref = 0.01 if 0.01 in gaps else common[0]
    claims.append(
        Claim.at_least(
            "balanced-subnet-keeps-accuracy-better-than-subnet",
            "BalancedSubnet loses less clean accuracy than Subnet (which ignores clean data) "
            "at the same ratio",
            f"acc drop(Subnet) − acc drop(BalancedSubnet) at ratio {ref:g} (points)",
            gaps[ref],
            0.0,
            paper="BalancedSubnet keeps accuracy where Subnet does not (§5)",
            details={
                **{f"gap_ratio_{v:g}": g for v, g in gaps.items()},
                **{f"subnet_mem_ratio_{v:g}": row("subnet", v)["mem"] for v in common},
                **{f"balanced_mem_ratio_{v:g}": row("balanced_subnet", v)["mem"] for v in common},
            },
        )
    )
    if cfg.claims_full:
        others = {
            n: selected[n]
            for n in UNLEARNING
            if n in selected and n not in ("balanced_subnet", "balanced_subnet_label")
        }
        within = {n: s["mem"] for n, s in others.items() if s is not None}
        best_other = min(within.values()) if within else math.inf
        claims.append(
            Claim.at_least(
                "balanced-subnet-best-within-budget",
                "BalancedSubnet's selected configuration has the lowest % memorised among the "
                "unlearning methods "
                "within the accuracy budget (or ties within 2 points)",
                "min over the other unlearning methods' selected % memorised − BalancedSubnet's (points)",
                (best_other - bs_sel["mem"]) if bs_sel is not None else -math.inf,
                -cfg.tie_points,
                paper="BalancedSubnet best trade-off (§6)",
                details={f"mem_{n}": v for n, v in within.items()},
            )
        )
        if "loss_truncation" in selected:
            lt = [r for r in rows if r["method"] == "loss_truncation"]
            keep = min(r["mem"] for r in lt) / base["mem"] if base["mem"] > 0 else math.nan
            claims.append(
                Claim.at_least(
                    "regularizer-weak",
                    "Regularizers are weak: loss truncation leaves most of the memorisation",
                    "min over loss-truncation settings of % memorised / base % memorised",
                    keep,
                    cfg.reg_keep,
                    paper="regularizers slow and ineffective (§4)",
                    details={"loss_truncation_mem": min(r["mem"] for r in lt), "base_mem": base["mem"]},
                )
            )
        if "ft_clean" in ft_curves and bs_sel is not None:
            target = bs_sel["mem"]
            reach = [c["seconds"] for c in ft_curves["ft_clean"] if c["mem"] <= target]
            total = ft_curves["ft_clean"][-1]["seconds"] if ft_curves["ft_clean"] else math.nan
            t_ft = reach[0] if reach else total
            claims.append(
                Claim.at_least(
                    "balanced-subnet-faster-than-finetuning",
                    "BalancedSubnet reaches a memorisation level faster than clean fine-tuning",
                    f"seconds of clean fine-tuning until % memorised ≤ BalancedSubnet's "
                    f"({target:.1f} %) divided "
                    "by BalancedSubnet's seconds"
                    + ("" if reach else " (fine-tuning never reached it: its total time, a lower bound)"),
                    t_ft / bs_sel["seconds"],
                    cfg.speedup,
                    paper="unlearning faster than fine-tuning (§6)",
                    details={
                        "ft_seconds": t_ft,
                        "balanced_subnet_seconds": bs_sel["seconds"],
                        "ft_reached": float(bool(reach)),
                    },
                )
            )
    return claims


def plots(report: Report) -> dict[str, Figure]:
    """% memorised vs accuracy (one point per method × setting, base marked) and wall-clock per method."""
    rows = report.metrics["rows"]
    base = report.metrics["base"]
    names = list(dict.fromkeys(r["method"] for r in rows))
    fig = Figure(figsize=(8, 5))
    ax = fig.add_subplot()
    markers = {"regularizer": "s", "fine-tuning": "^", "unlearning (neuron)": "o", "unlearning (weight)": "D"}
    for i, n in enumerate(names):
        rs = [r for r in rows if r["method"] == n]
        ax.scatter(
            [r["acc"] for r in rs],
            [r["mem"] for r in rs],
            color=f"C{i % 10}",
            marker=markers.get(rs[0]["family"], "o"),
            label=n,
            s=30 if n != "balanced_subnet" else 70,
            edgecolor="k" if n == "balanced_subnet" else None,
        )
    ax.scatter([base["acc"]], [base["mem"]], marker="*", s=200, color="k", label="no mitigation")
    ax.axvline(base["acc"] - 5.0, color="gray", ls="--", lw=1, label="accuracy budget (−5 pts)")
    ax.set_xlabel("clean next-token accuracy on k=7 test data (%)")
    ax.set_ylabel("% of eligible noised sequences memorised")
    ax.set_title("memorisation vs accuracy (one point per method × hyper-parameter)", fontsize=9)
    ax.legend(fontsize=6, ncol=2)
    ax.grid(True, alpha=0.3)
    figs = {"mem_vs_acc": fig}
    sel = {
        r["method"]: r
        for r in report.tables["Selected configuration per method"]
        if r["method"] != "none (base model)" and math.isfinite(r["seconds"])
    }
    if sel:
        fig2 = Figure(figsize=(8, 4))
        ax2 = fig2.add_subplot()
        ks = list(sel)
        ax2.bar(
            range(len(ks)),
            [sel[k]["seconds"] for k in ks],
            color=["C3" if k == "balanced_subnet" else "C0" for k in ks],
            label="selected configuration",
        )
        ax2.set_xticks(range(len(ks)), ks, rotation=40, ha="right", fontsize=7)
        ax2.set_ylabel("CPU seconds (1 thread)")
        ax2.set_xlabel("method")
        ax2.set_yscale("log")
        ax2.set_title("cost of each mitigation at its selected setting", fontsize=9)
        ax2.legend(fontsize=7)
        fig2.tight_layout()
        figs["wallclock"] = fig2
    return figs


__all__ = ["Config", "plots", "run"]
