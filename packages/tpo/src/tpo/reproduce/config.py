"""The reproduction's scales (quick, full, smoke), its methods, the tuning grid and the claims' margins."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

from paperkit.scales import Scales, ScaleTable

from tpo.arith import ArithSpec
from tpo.training import DPOObjective, DPOPLObjective, TPOObjective

#: method name -> (label, objective factory of beta; None: SFT on the best trajectory)
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

#: the methods every claim compares; each is tuned on dev with the same grid and budget
TUNED = ("dpo", "dpo_best_vs_worst", "tpo")


def _default_spec() -> ArithSpec:
    return ArithSpec(min_steps=2, max_steps=3, max_operand=9, ops="+-*", max_abs_value=9, min_value=0)


@dataclass(frozen=True)
class Margins:
    """Claim bounds (source; calibration in RESULTS.md)."""

    # N = 2 lists: TPO w/o ASR equals DPO (an identity; float32 round-off).
    pair_equality_max: float = 1e-6
    # accuracy TPO − DPO (either pairing): the paper's direction, the 95% CI above 0.
    acc_gap_min: float = 0.0
    # accuracy TPO − SFT start: the paper's direction, the 95% CI above 0.
    acc_sft_min: float = 0.0
    # proxy (ours): Kendall τ TPO − DPO, the spec's proposed 0.05 on the 95% CI's lower end.
    tau_gap_min: float = 0.05


@dataclass(frozen=True)
class Config(Scales):
    """The reproduction's scale and settings (defaults are the full run).

    Attributes:
        n_train, n_dev, n_test: problems (one tree each) for SFT + preference training, tuning (dev
            accuracy) and the final held-out evaluation; disjoint by operand tuple.
        spec: the problem distribution (K = 2-3 steps, operands 1-9, every intermediate a digit).
        n_branches: slipped branches a tree (list size N = n_branches + 2).
        gold_fraction: share of gold solutions in the SFT data (spec: 70/30 gold/slipped).
        d_model, n_layer, n_head, max_length: the tiny GPT-2 (paperkit.lm) and its context.
        sft_steps, sft_batch, sft_lr: SFT of the reference policy.
        po_steps, po_batch, po_warmup: every preference method's budget (the same for all, in tuning too).
        lrs, betas: the tuning grid, the same for every method in ``TUNED`` (lr x β cells).
        default_lr, default_beta: the setting of the untuned extra methods (ablations; spec β 0.1, lr 1e-4).
        methods: every method trained; must include ``TUNED``.
        n_seeds: paired seeds of preference training (data order and pair draws; the same for every
            method); seed 0's run of the chosen cell is the tuning run itself.
        curve_every: dev τ every this many steps for the learning-curve plot (0: off).
        n_boot, level: bootstrap of the paired differences (seeds x test problems).
        torch_threads: intra-op threads while running.
        margins: the claims' bounds.
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
    po_warmup: int = 10
    lrs: tuple[float, ...] = (3e-5, 1e-4, 3e-4)
    betas: tuple[float, ...] = (0.05, 0.1, 0.4)
    default_lr: float = 1e-4
    default_beta: float = 0.1
    methods: tuple[str, ...] = ("dpo", "dpo_best_vs_worst", "tpo", "sft_best", "tpo_no_asr", "tpo_no_lambda")
    n_seeds: int = 3
    curve_every: int = 40
    n_boot: int = 4000
    level: float = 0.95
    torch_threads: int = 1
    margins: Margins = field(default_factory=Margins)

    def __post_init__(self) -> None:
        unknown = set(self.methods) - set(METHODS)
        if unknown:
            raise ValueError(f"unknown methods {sorted(unknown)}; expected names from {sorted(METHODS)}")
        if not set(TUNED) <= set(self.methods):
            raise ValueError(f"methods must include {TUNED} (the claims compare them)")
        for name in (
            "n_train",
            "n_dev",
            "n_test",
            "sft_steps",
            "sft_batch",
            "po_steps",
            "po_batch",
            "n_seeds",
        ):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
        if self.n_branches < 1:
            raise ValueError(f"n_branches must be >= 1, got {self.n_branches}")
        for name in ("betas", "lrs"):
            vals = getattr(self, name)
            if not vals or not all(v > 0 and math.isfinite(v) for v in vals):
                raise ValueError(f"{name} must be a non-empty tuple of positive numbers, got {vals}")
        if not (self.default_beta > 0 and self.default_lr > 0):
            raise ValueError("default_beta and default_lr must be positive")

    SCALES: ClassVar[ScaleTable] = {
        # quick: About a minute or two on 2 cores: one seed, the three compared methods, a 2-cell grid.
        "quick": {
            "n_test": 300,
            "n_dev": 60,
            "po_steps": 60,
            "lrs": (1e-4, 3e-4),
            "betas": (0.1,),
            "methods": TUNED,
            "n_seeds": 1,
            "curve_every": 0,
        },
        # full (the defaults): Six methods (three tuned on a 3 x 3 grid), 3 paired seeds, 120 steps, 400
        # test trees.
        # smoke: Seconds: a few dozen problems and steps; its claims are not meaningful.
        "smoke": {
            "n_train": 40,
            "n_dev": 8,
            "n_test": 16,
            "sft_steps": 5,
            "sft_batch": 8,
            "po_steps": 3,
            "po_batch": 2,
            "po_warmup": 1,
            "lrs": (1e-4,),
            "betas": (0.1,),
            "methods": TUNED,
            "n_seeds": 1,
            "curve_every": 0,
            "n_boot": 200,
        },
    }
