"""Scales of the reproduction and the frozen claim margins (RESULTS.md, "Calibration")."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from paperkit import Scales, ScaleTable, check_int, check_number

from tta_attack.attacks import AttackConfig
from tta_attack.data import CORRUPTIONS
from tta_attack.tta import TTA_METHODS, TTAConfig

__all__ = ["Config", "Margins"]

PAPER_VICTIMS = ("tent", "eata", "sar", "sotta")  # the paper's batch-wise victims (TeBN is ours)


@dataclass(frozen=True)
class Margins:
    """One line per margin: its source and its calibration (RESULTS.md, "Calibration")."""

    gate_source_acc: float = 0.85  # ours: the source CNN learns the clean digits
    gate_dia_effect: float = 0.05  # ours (issue): DIA clearly hurts before any claim is judged
    fca_vs_dia: float = 0.05  # abstract "closely matches": FCA - DIA >= -5 points (CI lower end)
    fca_vs_pseudo: float = 0.0  # issue: FCA above DIA-pseudo (CI lower end > 0)
    fca_vs_random: float = 0.0  # issue: FCA above random noise (CI lower end > 0)
    random_effect: float = 0.03  # spec claim 3: random noise raises benign error by < 3 points
    defence_share: float = 0.5  # Sec. 7.1 "nearly ineffective": a defence keeps >= half of FCA's effect


@dataclass(frozen=True)
class Config(Scales):
    """Defaults are the full run; every scale uses the same regime (corruptions, eps, steps, batch)."""

    SCALES: ClassVar[ScaleTable] = {
        # quick (~1 min): the paper's own simplest victim set cut to TeBN and Tent, 3 paired seeds
        "quick": {"n_seeds": 3, "victims": ("tent",), "n_batches": 2, "defence_victims": ("tent",)},
        # smoke (seconds, tests only; its claims mean nothing)
        "smoke": {
            "n_seeds": 2,
            "victims": ("tebn",),
            "corruptions": ("contrast",),
            "n_batches": 1,
            "batch": 20,
            "epochs": 1,
            "steps": 2,
            "channels": (4, 8),
            "defence_victims": ("tebn",),
            "dev_batches": 1,
        },
    }

    n_seeds: int = 5  # issue: 5 paired seeds
    corruptions: tuple[str, ...] = CORRUPTIONS
    severity: int = 3  # run.sh default severity 3
    victims: tuple[str, ...] = ("tebn", *PAPER_VICTIMS)
    defence_victims: tuple[str, ...] = ("tent", "sar")
    batch: int = 100  # the official scripts: 200 (CIFAR), 100 (ImageNet)
    n_batches: int = 3  # test batches a stream (scored)
    dev_batches: int = 1  # held-out batches of the test part, for tuning the PGD step
    test_fraction: float = 0.3
    channels: tuple[int, ...] = (16, 32)
    epochs: int = 10  # spec: Adam 1e-3, 25 epochs (10 here: the CPU budget; RESULTS.md)
    eps: float = (
        16 / 255
    )  # ours (calibrated pilot, RESULTS.md: 32/255 lets noise alone add 6 points); paper 8/255
    steps: int = 20  # ours (CPU budget); the paper's T = 100
    alpha_grid: tuple[float, ...] = (
        0.25,
        0.1,
    )  # step / eps: the paper's 2/255 over 8/255, and the spec's 1/10
    malicious: float = 0.2  # DIA.MAL_PORTION
    accumulate_grad: bool = True  # as released
    continual: bool = False  # DIA.CONTINUAL
    tta: TTAConfig = field(default_factory=TTAConfig)
    margins: Margins = field(default_factory=Margins)

    def __post_init__(self) -> None:
        check_int(self.n_seeds, "n_seeds", low=2)
        check_number(self.eps, "eps", low=0.0)
        check_int(self.steps, "steps", low=0)
        for v in (*self.victims, *self.defence_victims):
            if v not in TTA_METHODS:
                raise ValueError(f"victims must be among {TTA_METHODS}, got {v!r}")

    def attack(self, alpha_ratio: float) -> AttackConfig:
        return AttackConfig(
            eps=self.eps,
            alpha=self.eps * alpha_ratio,
            steps=self.steps,
            malicious=self.malicious,
            accumulate_grad=self.accumulate_grad,
        )
