"""The experiment's design: its scale (Config: quick / full / smoke), the data of each scale, the cases
(one method at one hyper-parameter value: Setting) and the claims' margins (Margins)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from paperkit.scales import Scales, ScaleTable
from paperkit.validation import check_int, check_positive

from tinymem.data import DataConfig
from tinymem.methods import METHODS

#: Subnet / BalancedSubnet ratios in the full run: x2 steps from 0.005 past 0.05 (the official grid's top).
SUBNET_RATIOS = (0.005, 0.01, 0.02, 0.04, 0.08)

#: The quick run's reduced data (the full run uses the spec's sizes, ``DataConfig()``): fewer sequences of
#: every kind and a shorter context, so that the base model trains in about half a minute.
QUICK_DATA = DataConfig(n_main=300, n_extra=60, n_test=100, n_noise=40, max_ctx=40, n_ft_extra=60)
#: The smoke scale's tiny data (seconds; nothing is meant to be memorised).
SMOKE_DATA = DataConfig(n_main=40, n_extra=8, n_test=16, n_noise=8, max_ctx=40, duplicates=2, n_ft_extra=8)


@dataclass(frozen=True)
class Setting:
    """One case of the sweep: a method of ``tinymem.methods.METHODS`` at one value of its hyper-parameter."""

    method: str
    value: float


@dataclass(frozen=True)
class Margins:
    """The claims' margins: the spec's values, checked against the calibration run (quick, seed 0,
    2026-11-29; README "Calibration of the margins") and frozen; the two full-only claims' against the
    full run (RESULTS.md)."""

    #: balanced-subnet-removes-memorisation (both loss forms): at most this % memorised (spec; paper ≈0 %,
    #: §5-6); within half the gap to the rival "does nothing" (52.5 % at calibration).
    mem_bound: float = 10.0
    #: the same claims: at most this clean-accuracy drop, points (spec; the selection budget).
    drop_bound: float = 5.0
    #: balanced-subnet-best-within-budget: a tie within this many points of % memorised counts (spec).
    tie_points: float = 2.0
    #: regularizer-weak: loss truncation keeps at least this share of the base memorisation (spec; full
    #: run 0.93 vs the rival 0: half the gap is 0.465).
    reg_keep: float = 0.5
    #: balanced-subnet-faster-than-finetuning: fine-tuning seconds / BalancedSubnet's (directional: 1).
    speedup: float = 1.0


@dataclass(frozen=True)
class Config(Scales):
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
        margins: the claims' margins (see :class:`Margins`).
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
    margins: Margins = field(default_factory=Margins)

    def __post_init__(self) -> None:
        unknown = set(self.methods) - set(METHODS)
        if unknown:
            raise ValueError(f"unknown methods {sorted(unknown)}; expected names from {sorted(METHODS)}")
        if not {"subnet", "balanced_subnet"} <= set(self.methods):
            raise ValueError("methods must include 'subnet' and 'balanced_subnet' (the claims compare them)")
        for name in (
            "n_layer",
            "n_embd",
            "n_head",
            "epochs",
            "batch_size",
            "unlearn_epochs",
            "torch_threads",
        ):
            check_int(getattr(self, name), name, low=1)
        check_int(self.slim_epochs, "slim_epochs", low=0)
        check_positive(self.lr, "lr")
        check_positive(self.max_acc_drop, "max_acc_drop", strict=False)
        for i, e in enumerate(self.ft_epochs):
            check_int(e, f"ft_epochs[{i}]", low=1)

    def grid(self, name: str) -> tuple[float, ...]:
        """The values of ``name``'s hyper-parameter this run sweeps."""
        return dict(self.grids).get(name, METHODS[name].grid)

    SCALES: ClassVar[ScaleTable] = {
        # quick: about 40 s quiet on one thread: QUICK_DATA, 30 epochs, Subnet and BalancedSubnet (both loss
        # forms) at ratio 0.01, 3 epochs.
        "quick": {
            "data": QUICK_DATA,
            "epochs": 30,
            "methods": ("subnet", "balanced_subnet", "balanced_subnet_label"),
            "grids": (("subnet", (0.01,)), ("balanced_subnet", (0.01,)), ("balanced_subnet_label", (0.01,))),
            "unlearn_epochs": 3,
            "claims_full": False,
        },
        # full (the defaults): about 5-8 min quiet: the spec's data sizes (DataConfig()), all 17 methods plus
        # BalancedSubnet under the older loss (regularizers at one setting, Subnet / BalancedSubnet over
        # SUBNET_RATIOS, the rest over their 3-point grids).
        # smoke: seconds: tiny data and 2 epochs; its claims are not meaningful.
        "smoke": {
            "data": SMOKE_DATA,
            "n_embd": 16,
            "epochs": 2,
            "methods": ("subnet", "balanced_subnet"),
            "grids": (("subnet", (0.01,)), ("balanced_subnet", (0.01,))),
            "unlearn_epochs": 1,
            "claims_full": False,
        },
    }
