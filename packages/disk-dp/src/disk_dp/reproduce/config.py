"""The experiment's design: its scale (Config), the classification cases (Case) and the claims' margins."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import ClassVar

from paperkit import Scales, ScaleTable
from paperkit.validation import check_bool, check_int, check_positive

from disk_dp.data import DATASETS

HEAD = "DiSK-SGD (official HEAD weight 1-kappa)"
METHODS = ("DP-SGD", "DP-SGD+EMA", "DiSK-SGD", HEAD, "DP-Adam", "DiSK-Adam", "SGD (non-private)")
ADAM = frozenset({"DP-Adam", "DiSK-Adam"})
NON_PRIVATE = "SGD (non-private)"
QUAD_METHODS = ("DP-SGD", "DP-SGD+EMA", "DiSK-SGD", "DiSK-SGD (c=1)")
PRED_METHODS = ("DP-SGD", "DP-SGD+EMA", "DiSK-SGD")


@dataclass(frozen=True)
class Case:
    """One classification cell (data set, target ε, method), trained on every seed; ``str(case)`` is its
    results.json key. The non-private method has ``eps = inf``."""

    dataset: str
    eps: float
    method: str

    def __str__(self) -> str:
        return f"{self.dataset}/eps={self.eps:g}/{self.method}"


@dataclass(frozen=True)
class Margins:
    """The claims' bounds, one line each with its source and calibration (README "Calibration of the
    margins", RESULTS.md "Margins set from that pilot"). Frozen; never moved to make a run pass."""

    #: DiSK-SGD − DP-SGD, digits ε = 1, points: the spec's +2 (quick seed 0, 2026-11-29: −0.00, the
    #: rival side, nothing to calibrate).
    sgd_gain_min: float = 2.0
    #: DiSK-Adam − DP-Adam, digits ε = 1, points: the spec's +1 (calibration observed −0.84: rival side).
    adam_gain_min: float = 1.0
    #: ε = 4, min over SGD/Adam of DiSK − base, points: the spec's control, ≥ −0.5 (observed +0.09).
    eps4_loss_max: float = 0.5
    #: Share of the filter algebra's predicted reduction delivered (ours): pilot 1.03, rival 0 -> 0.5.
    quad_reduction_min: float = 0.5
    #: |measured − predicted| DiSK/DP-SGD ratio (ours): pilot 0.002 / 0.011, rival 0.14 -> 0.05.
    pred_tol: float = 0.05
    #: DiSK / EMA tail excess, spec setting: the spec's ablation bound 0.99 (unchanged).
    quad_vs_ema_max: float = 0.99
    #: DiSK vs DP-SGD ε, max relative difference: post-processing gives exactly 0; 1e-12 is float rounding.
    privacy_parity_max: float = 1e-12
    #: Our ε vs Opacus' RDPAccountant, max relative difference: the spec's 1 %.
    eps_rel_max: float = 0.01
    #: Step time one-gradient DiSK / DP-SGD (CPU time): the spec's 1.15 (benchmark before the run: 1.11).
    one_grad_time_max: float = 1.15
    #: Step time two-gradient DiSK / DP-SGD (CPU time): the spec's 2.3 (one extra gradient).
    two_grad_time_max: float = 2.3


@dataclass(frozen=True)
class Config(Scales):
    """Scale and settings (defaults: the full run). Method defaults from the spec / official code.

    Attributes:
        datasets, eps_values, methods: what is trained.
        delta: 1e-5 (spec; official mnist.py). batch: expected batch size qn = 64 (mnist.py).
        clip: C = 1.0 (mnist.py). epochs: passes (T = epochs / q).
        kappa, gamma: 0.7, 0.5 (official defaults); the one-gradient path uses gamma = (1-kappa)/kappa = 3/7.
        lr_sgd, lr_adam: learning rates when not tuned (spec's quick plan: 0.5 for SGD).
        lr_grid_sgd, lr_grid_adam: grids for the validation search (``tune_lr``).
        n_seeds: training seeds per (data set, epsilon, method).
        quad_*: the noisy quadratic in the spec's setting (n, d, cond, steps, seeds, lr, sigma; C = clip).
        pred_clip, pred_lrs: the unclipped regime of the algebra check: C = pred_clip with sigma =
            quad_sigma / pred_clip (the same noise std sigma C as the spec setting), at each lr.
        tune_seeds: paired seeds of the dev-split lr search (every method, every grid point).
        timing_steps: steps per method in the cost measurement (0: skip; its numbers are not reproducible).
        accountant_grid: (q, sigma, T) triples for the accountant check.
        margins: the claims' bounds (see :class:`Margins`).
    """

    datasets: tuple[str, ...] = DATASETS
    eps_values: tuple[float, ...] = (0.25, 1.0, 4.0)
    methods: tuple[str, ...] = METHODS
    delta: float = 1e-5
    batch: int = 64
    clip: float = 1.0
    epochs: int = 10
    kappa: float = 0.7
    gamma: float = 0.5
    lr_sgd: float = 0.5
    lr_adam: float = 0.01
    tune_lr: bool = True
    lr_grid_sgd: tuple[float, ...] = (0.125, 0.25, 0.5, 1.0, 2.0)
    lr_grid_adam: tuple[float, ...] = (0.002, 0.004, 0.008, 0.016, 0.032)
    tune_seeds: int = 3
    n_seeds: int = 5
    quad_n: int = 2000
    quad_d: int = 50
    quad_cond: float = 100.0
    quad_steps: int = 1000
    quad_seeds: int = 3
    quad_lr: float = 0.5
    quad_sigma: float = 1.0
    pred_clip: float = 20.0
    pred_lrs: tuple[float, ...] = (0.5, 1.5)
    timing_steps: int = 40
    accountant_grid: tuple[tuple[float, float, int], ...] = (
        (64 / 1437, 2.9, 225),
        (64 / 1437, 1.0, 450),
        (0.01, 0.8, 1000),
        (0.1, 2.0, 100),
        (0.001, 5.0, 10000),
        (0.2, 0.6, 50),
    )
    margins: Margins = field(default_factory=Margins)

    def __post_init__(self) -> None:
        for name in (
            "batch",
            "epochs",
            "n_seeds",
            "quad_steps",
            "quad_seeds",
            "quad_n",
            "quad_d",
            "tune_seeds",
        ):
            check_int(getattr(self, name), name, low=1)
        check_int(self.timing_steps, "timing_steps", low=0)
        check_bool(self.tune_lr, "tune_lr")
        for name in ("delta", "clip", "lr_sgd", "lr_adam", "quad_lr", "quad_sigma", "pred_clip"):
            check_positive(getattr(self, name), name)
        if not set(self.datasets) <= set(DATASETS) or "digits" not in self.datasets:
            raise ValueError(f"datasets must include 'digits' and be among {DATASETS}, got {self.datasets}")
        if not set(self.methods) <= set(METHODS) or not {"DP-SGD", "DiSK-SGD"} <= set(self.methods):
            raise ValueError(f"methods must include DP-SGD and DiSK-SGD and be among {METHODS}")
        if 1.0 not in self.eps_values or any(e <= 0 for e in self.eps_values):
            raise ValueError(f"eps_values must be > 0 and include 1.0, got {self.eps_values}")

    def lr(self, method: str) -> float:
        """The untuned learning rate of ``method`` (its family's)."""
        return self.lr_adam if method in ADAM else self.lr_sgd

    def cases(self, dataset: str) -> tuple[Case, ...]:
        """The classification cases of one data set, in run order: each method at each ε (once, at
        ε = inf, for the non-private reference)."""
        return tuple(
            Case(dataset, eps, method)
            for method in self.methods
            for eps in (self.eps_values if method != NON_PRIVATE else (math.inf,))
        )

    SCALES: ClassVar[ScaleTable] = {
        # quick: ~1 min quiet: digits, epsilon = 1, DP-SGD vs DiSK-SGD at lr 0.5, 3 seeds; quadratic
        # 300 steps.
        "quick": {
            "datasets": ("digits",),
            "eps_values": (1.0,),
            "methods": ("DP-SGD", "DiSK-SGD"),
            "tune_lr": False,
            "n_seeds": 3,
            "quad_steps": 300,
            "quad_seeds": 3,
        },
        # full (the defaults): ~5 min quiet: both data sets, epsilon in {0.25, 1, 4}, all methods, lr
        # tuned, 5 seeds; quadratic 1000 steps x 3 seeds.
        # smoke: seconds: 1 epoch, 1 seed, quadratic 20 steps, no timing; its claims are not meaningful.
        "smoke": {
            "datasets": ("digits",),
            "eps_values": (1.0,),
            "methods": ("DP-SGD", "DiSK-SGD"),
            "tune_lr": False,
            "epochs": 1,
            "n_seeds": 1,
            "quad_steps": 20,
            "quad_seeds": 1,
            "quad_n": 200,
            "pred_lrs": (0.5,),
            "timing_steps": 0,
            "accountant_grid": ((64 / 1437, 2.9, 22),),
        },
    }
