"""The experiment's design: its scale (Config), the claims' margins (Margins), and the cases it runs
(the seeds' models, the baselines, the torch-vs-brian2 twins)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Literal

import torch
from paperkit.scales import Scales, ScaleTable
from paperkit.validation import check_int, check_positive

from barrel_snn.anatomy import check_scale


@dataclass(frozen=True)
class Margins:
    """The claims' bounds. Full run: the spec's; quick run: frozen from one calibration run
    (``barrel-snn reproduce --quick --seed 0``, RESULTS.md), at half the observed gap to the rival."""

    #: learns-task: the spec's full-run bound 0.70; quick 0.46 (observed 0.589, chance 1/3).
    acc_min: float = 0.70
    #: deprivation-lowers-accuracy: the spec's full-run bound 0.05; quick 0.015 (observed 0.033, no effect 0).
    dep_drop_min: float = 0.05
    #: deprivation-monotone: the spec's full-run bound -0.6; quick -0.29 (observed -0.584, no trend 0).
    dep_spearman_max: float = -0.6


#: The quick run's margins, frozen from its calibration run (seed 0, RESULTS.md): half the observed gap.
QUICK_MARGINS = Margins(acc_min=0.46, dep_drop_min=0.015, dep_spearman_max=-0.29)


@dataclass(frozen=True)
class TwinCase:
    """One torch twin of the trained model simulated against brian2: update order and float type."""

    tag: str
    order: Literal["jacobi", "sequential"]
    dtype: torch.dtype


#: The agreement check's twins: float64 and float32 jacobi copies of the trained weights, and the official
#: sequential order as a guard (it must differ from brian2's jacobi update).
TWINS = (
    TwinCase("jacobi_f64", "jacobi", torch.float64),
    TwinCase("jacobi_f32", "jacobi", torch.float32),
    TwinCase("sequential_f64", "sequential", torch.float64),
)


@dataclass(frozen=True)
class Config(Scales):
    """Scale and settings (defaults: the full run). Method defaults are the official code's.

    Attributes:
        scale: network fraction of the 4,218-neuron column (spec's full plan 0.25; we use 0.1, see README).
        sparse: sparse COO synapses in training (the same numbers as dense masked; speed only).
        n_train, n_test: synthetic sweeps; dt_rep: frame repetition (official 5; spec's plan 1, T = 110);
            frames: frames per sweep (the data set's 110; fewer only for the smoke scale).
        epochs, batch, lr: training (x5 tau_adp, x2 tau_m, StepLR(20, 0.8) as official). The official lr
            8e-3 goes with batch 128; at our batch 16 it saturates the readout softmax of seed 1 within 4
            steps (RESULTS.md), so the full run uses 2e-3 (a deviation); the quick run keeps 8e-3.
        init_w, init_b: official 0.06, 0.04 (spiking data).
        n_seeds: seeds s, s+1, ... each with its own data, weights and masks.
        dep_counts, dep_draws: whisker-deprivation conditions (first seed's model).
        baseline_epochs, baseline_lr: LSTM / GRU / CNN training (Adam, 1e-3, batch as the SNN).
        brian_trials: test samples simulated in brian2 for the agreement check (trained model, jacobi).
        brian_full_trials: trials of the untrained full-scale (4,218 neurons) brian2 simulation; 0 = skip.
        margins: the claims' bounds (see :class:`Margins`).
    """

    scale: float = 0.1
    sparse: bool = False
    n_train: int = 240
    n_test: int = 120
    dt_rep: int = 1
    frames: int = 110
    epochs: int = 5
    batch: int = 16
    lr: float = 2e-3  # deviation: official 8e-3 at batch 128 (see the docstring and RESULTS.md)
    init_w: float = 0.06
    init_b: float = 0.04
    n_seeds: int = 3
    dep_counts: tuple[int, ...] = (0, 1, 2, 4, 8)
    dep_draws: int = 4
    baseline_epochs: int = 10
    baseline_lr: float = 1e-3
    brian_trials: int = 2
    brian_full_trials: int = 3
    margins: Margins = field(default_factory=Margins)

    def __post_init__(self) -> None:
        check_scale(self.scale)
        for name in ("n_train", "n_test", "epochs", "batch", "n_seeds", "dt_rep", "frames", "dep_draws"):
            check_int(getattr(self, name), name, low=1)
        check_int(self.brian_trials, "brian_trials", low=1, high=self.n_test)
        check_int(self.brian_full_trials, "brian_full_trials", low=0, high=self.n_test)
        check_int(self.baseline_epochs, "baseline_epochs", low=0)
        for name in ("lr", "baseline_lr", "init_w", "init_b"):
            check_positive(getattr(self, name), name)
        if 0 not in self.dep_counts or len(self.dep_counts) < 2:
            raise ValueError("dep_counts must contain 0 (intact) and at least one deprived count")

    SCALES: ClassVar[ScaleTable] = {
        # quick: about a minute on 2 quiet cores: scale 0.05 (213 neurons), 240/90 sweeps, 3 epochs, 1 seed.
        "quick": {
            "scale": 0.05,
            "n_train": 240,
            "n_test": 90,
            "epochs": 3,
            "lr": 8e-3,  # the official lr; seed 0 at scale 0.05 does not collapse with it (calibration run)
            "n_seeds": 1,
            "dep_counts": (0, 1, 4, 8),
            "dep_draws": 3,
            "baseline_epochs": 10,
            "brian_trials": 1,
            "brian_full_trials": 0,
            "margins": QUICK_MARGINS,
        },
        # full (the defaults): about 5 minutes on 2 quiet cores: scale 0.1 (421 neurons), 240/120 sweeps,
        # 5 epochs, lr 2e-3, 3 seeds, brian2 at full scale (3 trials).
        # smoke: seconds: scale 0.02, 24/12 sweeps of 30 frames, 1 epoch; claims not meaningful.
        "smoke": {
            "scale": 0.02,
            "n_train": 24,
            "n_test": 12,
            "frames": 30,
            "epochs": 1,
            "batch": 12,
            "n_seeds": 1,
            "dep_counts": (0, 2),
            "dep_draws": 1,
            "baseline_epochs": 1,
            "brian_trials": 1,
            "brian_full_trials": 0,
        },
    }
