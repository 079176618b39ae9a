"""Scales of the reproduction and the frozen claim margins (calibration: RESULTS.md)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import ClassVar

from paperkit import Scales, ScaleTable, check_int

from attention_hypernet.logic import FuzzyLogic
from attention_hypernet.sraven import SRaven
from attention_hypernet.training import TrainConfig

__all__ = ["Config", "Margins"]


@dataclass(frozen=True)
class Margins:
    """One line per margin: its source and calibration (RESULTS.md, "Calibration")."""

    exact_f64: float = (
        1e-10  # spec claim 1: max |MHA - hypernetwork form| in float64 (relative to max(1, |y|))
    )
    exact_f32: float = 1e-5  # spec claim 1: the same in float32
    gate_r2: float = 0.9  # issue 28: softmax attention's in-distribution R^2 before the comparison is judged
    hyla_vs_linear: float = 0.0  # paper gives no number; spec proposed 0.05; ours: CI low > 0 (RESULTS.md)
    nonlinearity: float = 0.0  # ours: HYLA - linear+RMSHead OOD R^2, CI low > 0 (direction of the ablation)
    probe_r2: float = 0.2  # spec claim 3 proposal: HYLA latent-probe R^2 > 0.2


def _logic_train(steps: int) -> TrainConfig:
    # Official configs/logic.py: emb 128, 8 heads, 2 layers, qk 16, v 16, MLP 256, batch 128, lr 1e-3,
    # warmup 100 of 50k steps. Ours halves emb/MLP and the batch and uses the sweep's lr 3e-3 (RESULTS.md).
    return TrainConfig(
        d_model=64,
        n_layers=2,
        n_heads=8,
        d_qk=16,
        d_v=16,
        d_mlp=128,
        steps=steps,
        batch_size=64,
        lr=3e-3,
        warmup=max(1, steps // 20),
        weight_decay=0.1,
    )


def _sraven_train(steps: int) -> TrainConfig:
    # Official configs/raven.py: emb 128, 16 heads, 4 layers, qk 64, v 64, MLP 256; ours is the spec's mini.
    return TrainConfig(
        d_model=64,
        n_layers=2,
        n_heads=8,
        d_qk=32,
        d_v=32,
        d_mlp=128,
        steps=steps,
        batch_size=64,
        lr=1e-3,
        warmup=max(1, steps // 20),
        weight_decay=0.1,
    )


_QUICK_LOGIC = _logic_train(100)
_SMOKE_LOGIC = replace(_logic_train(6), d_model=16, d_mlp=16, batch_size=8)


@dataclass(frozen=True)
class Config(Scales):
    """Defaults are the full run (about 6 CPU-minutes); ``quick()`` about 40 CPU-seconds."""

    SCALES: ClassVar[ScaleTable] = {
        "quick": {
            "logic_train": _QUICK_LOGIC,
            "logic_mixers": ("softmax", "linear", "hyla"),
            "sraven": None,
            "eval_n": 1024,
        },
        "smoke": {
            "logic_train": _SMOKE_LOGIC,
            "logic_mixers": ("linear", "hyla"),
            "n_seeds": 2,
            "eval_n": 32,
            "sraven": SRaven(num_features=2),
            "sraven_train": replace(_SMOKE_LOGIC, d_qk=16, d_v=16),
            "sraven_mixers": ("hyla",),
        },
    }

    # Official main task logic_4var_2term with seq_len 32, a value of both official sweeps
    # (sweeps/logic.yaml: 16-96; logic_ablation.yaml: 32): per CPU-second softmax learns ~2x faster than
    # at the config's 16 (session-3 pilots, RESULTS.md); 64 is slower per CPU-second.
    logic: FuzzyLogic = field(default_factory=lambda: FuzzyLogic(seq_len=32))
    # 800 steps (15 models at ~40 ms per model-step, stacked: 10.7 CPU-minutes in all). The gate needs far
    # more: softmax test R^2 0.56 after 1,500 steps at seq_len 32, 0.49 after 6,000 at 16 (RESULTS.md)
    logic_train: TrainConfig = field(default_factory=lambda: _logic_train(800))
    logic_mixers: tuple[str, ...] = ("softmax", "linear", "hyla", "linear_rms_head", "hyla_no_rms_head")
    sraven: SRaven | None = field(default_factory=lambda: SRaven(num_features=2, seed=2024))
    sraven_train: TrainConfig = field(default_factory=lambda: _sraven_train(300))
    sraven_mixers: tuple[str, ...] = ("softmax", "linear", "hyla")
    sraven_seeds: int = 1  # report-only, one seed to fit the 10-minute budget
    n_seeds: int = 3
    eval_n: int = 2048
    margins: Margins = field(default_factory=Margins)

    def __post_init__(self) -> None:
        check_int(self.n_seeds, "n_seeds", low=1)
        check_int(self.sraven_seeds, "sraven_seeds", low=1)
        check_int(self.eval_n, "eval_n", low=8)
        for need in ("hyla", "linear"):
            if need not in self.logic_mixers:
                raise ValueError(f"logic_mixers must include {need!r}, got {self.logic_mixers}")
