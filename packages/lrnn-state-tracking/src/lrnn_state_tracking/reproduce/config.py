"""The experiment's design: the model variants (MODELS), the blocks of runs (Block), the typed case of
one run (RunCase), the claims' margins (Margins) and the scale (Config: quick / full / smoke)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from paperkit.scales import Scales, ScaleTable
from paperkit.validation import check_choice, check_int, check_positive

from lrnn_state_tracking.tasks import get_task

#: Model name -> (layer, eigenvalue range).
MODELS: dict[str, tuple[str, str]] = {
    "diag[0,1]": ("diag", "01"),
    "diag[-1,1]": ("diag", "pm1"),
    "deltanet[0,1]": ("deltanet", "01"),
    "deltanet[-1,1]": ("deltanet", "pm1"),
    "ghproduct[-1,1]": ("ghproduct", "pm1"),
    "lstm": ("lstm", "01"),
    "transformer": ("transformer", "01"),
}
#: The [0,1] LRNN variants (the parity-01-fails claim's models).
ZERO_ONE = ("diag[0,1]", "deltanet[0,1]")


def _check_range(value: tuple[int, int], name: str) -> None:
    """A (min, max) pair of lengths with 1 <= min <= max."""
    low = check_int(value[0], f"{name}[0]", low=1)
    check_int(value[1], f"{name}[1]", low=low)


@dataclass(frozen=True)
class Block:
    """One block of runs: ``models`` on ``task``, ``seeds`` seeds each, with its own model size and steps.

    ``label`` names the block (default: the task); ``train_len`` and ``d_state`` override the config's
    for this block; ``train_mode`` is the LRNN layers' form in training (``"sequential"`` is faster for
    sequences of at most ~16 tokens on a CPU; evaluation always uses the parallel form).
    """

    task: str
    models: tuple[str, ...]
    seeds: int
    steps: int
    d_model: int
    n_layers: int
    lr: float
    weight_decay: float = 0.0
    label: str = ""
    train_len: tuple[int, int] | None = None
    d_state: int | None = None
    train_mode: str = "parallel"

    def __post_init__(self) -> None:
        get_task(self.task)
        unknown = [m for m in self.models if m not in MODELS]
        if unknown:
            raise ValueError(f"unknown models {unknown}; expected names from {sorted(MODELS)}")
        for name in ("seeds", "steps", "d_model", "n_layers"):
            check_int(getattr(self, name), name, low=1)
        check_positive(self.lr, "lr")
        check_positive(self.weight_decay, "weight_decay", strict=False)
        if self.train_len is not None:
            _check_range(self.train_len, "train_len")
        if self.d_state is not None:
            check_int(self.d_state, "d_state", low=1)
        check_choice(self.train_mode, "train_mode", ("parallel", "sequential"))

    @property
    def key(self) -> str:
        """The block's name in the results (``label`` or the task)."""
        return self.label or self.task


@dataclass(frozen=True)
class RunCase:
    """One training run: a model of a block on one seed; ``str(case)`` is its results.json key's stem."""

    block: Block
    model: str
    seed: int

    def __str__(self) -> str:
        return f"{self.block.key}/{self.model}"


# The diagonal model's parity claim in a regime our budget reaches (issue 21): the official d_state 16,
# training lengths 3-10 (the paper's 3-40 needs more steps than we can afford to leave the ln 2 plateau),
# the [0,1] control beside it, 3 seeds; evaluation on the paper's 41-256 (length generalisation).
SHORT_PARITY = Block(
    "parity", ("diag[0,1]", "diag[-1,1]"), seeds=3, steps=3000, d_model=16, n_layers=1, lr=1e-2,
    label="parity-train-3-10", train_len=(3, 10), d_state=16, train_mode="sequential",
)  # fmt: skip


@dataclass(frozen=True)
class Margins:
    """The claims' bounds, frozen from calibration runs (RESULTS.md); never moved to make a run pass."""

    #: parity-diag-pm1-solves: the spec's 0.95 kept (the quick calibration run, seed 0, sat at chance 0.507:
    #: nothing to calibrate).
    pm1_parity_min: float = 0.95
    #: parity-01-fails: half-way from the quick calibration run's [0,1] max 0.507 to the best [-1,1] 0.903.
    zero_one_parity_max: float = 0.71
    #: parity-deltanet-pm1-solves: half-way from the calibration run's 0.903 to chance 0.5 (the spec's 0.90
    #: would be tighter).
    deltanet_pm1_parity_min: float = 0.70
    #: parity-diag-pm1-solves-short-train: SHORT_PARITY's calibration run (seed 0, 2026-12-01, RESULTS.md
    #: section 2), diag[-1,1] 0.933 vs chance 0.5: half-way 0.717.
    short_pm1_parity_min: float = 0.72
    #: parity-diag-01-fails-short-train: the same run's diag[0,1] 0.493 vs its [-1,1] model's 0.933: 0.713.
    short_zero_one_parity_max: float = 0.71
    #: parity-diag-pm1-minus-01-short-train: half the same run's paired gap 0.440.
    short_gap_min: float = 0.22


#: The four LRNN variants of the parity block: diagonal and DeltaNet, each with [0,1] and [-1,1].
LRNNS = ("diag[0,1]", "diag[-1,1]", "deltanet[0,1]", "deltanet[-1,1]")

#: The full run's blocks: parity with 3 seeds and the LSTM / Transformer baselines, the short-training
#: parity block, and the report-only mod-3 and mod-5 blocks.
FULL_BLOCKS = (
    Block("parity", (*LRNNS, "lstm", "transformer"), seeds=3, steps=400, d_model=16, n_layers=1, lr=1e-2),
    SHORT_PARITY,
    Block(
        "count_mod3", ("diag[0,1]", "diag[-1,1]", "ghproduct[-1,1]"),
        seeds=1, steps=400, d_model=16, n_layers=1, lr=1e-2,
    ),
    Block(
        "mod_arith", ("deltanet[0,1]", "deltanet[-1,1]"),
        seeds=1, steps=400, d_model=32, n_layers=1, lr=1e-2, weight_decay=0.1,
    ),
)  # fmt: skip


@dataclass(frozen=True)
class Config(Scales):
    """Scale and settings of the reproduction (defaults: the full run).

    Attributes:
        experiments: the blocks of runs; the first must be parity.
        batch, warmup: 64 sequences a step, 50 warm-up steps, then cosine decay to lr·1e−3 (spec).
        train_len, eval_len: (3, 40) and (41, 256) (official harness: train 3–40, test 40–256).
        n_eval: evaluation sequences per run (1,024, spec).
        oracle_len, oracle_batch: the oracles' strings (10,000 long, spec).
        d_state: Mamba state size N (official 16; 4 in the 3-40 blocks to fit the CPU budget: with
            N = 4 and Mamba's Δ init no [-1,1] eigenvalue is negative at initialisation, see README).
        conv: short-convolution width of the LRNN layers (official 4; 0 here, see the README's deviations).
        margins: the claims' bounds (see :class:`Margins`).
    """

    experiments: tuple[Block, ...] = FULL_BLOCKS
    batch: int = 64
    warmup: int = 50
    train_len: tuple[int, int] = (3, 40)
    eval_len: tuple[int, int] = (41, 256)
    n_eval: int = 1024
    oracle_len: int = 10_000
    oracle_batch: int = 4
    d_state: int = 4
    conv: int = 0
    margins: Margins = field(default_factory=Margins)

    def __post_init__(self) -> None:
        if not self.experiments or self.experiments[0].task != "parity":
            raise ValueError("the first experiment must be parity (the claims are about it)")
        for name in ("batch", "n_eval", "oracle_len", "oracle_batch", "d_state"):
            check_int(getattr(self, name), name, low=1)
        check_int(self.warmup, "warmup", low=0)
        check_int(self.conv, "conv", low=0)
        _check_range(self.train_len, "train_len")
        _check_range(self.eval_len, "eval_len")

    def cases(self, seed: int = 0) -> tuple[RunCase, ...]:
        """Every run in run order: block by block, model by model, seeds seed .. seed + block.seeds - 1."""
        blocks = self.experiments
        return tuple(RunCase(b, m, seed + s) for b in blocks for m in b.models for s in range(b.seeds))

    SCALES: ClassVar[ScaleTable] = {
        # quick: about a minute: parity, the four LRNN variants, 1 seed, 400 steps.
        "quick": {
            "experiments": (Block("parity", LRNNS, seeds=1, steps=400, d_model=16, n_layers=1, lr=1e-2),)
        },
        # full (the defaults): about 9 minutes: FULL_BLOCKS.
        # smoke: seconds: 3 steps, 16 evaluation sequences of lengths 41-60; its claims are not meaningful.
        "smoke": {
            "experiments": (Block("parity", LRNNS, seeds=1, steps=3, d_model=8, n_layers=1, lr=1e-2),),
            "n_eval": 16,
            "eval_len": (41, 60),
            "oracle_len": 300,
            "oracle_batch": 2,
        },
    }
