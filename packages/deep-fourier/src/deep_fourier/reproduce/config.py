"""Scales of the reproduction and the frozen claim margins (calibration: RESULTS.md)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from paperkit import Scales, check_int
from paperkit.scales import ScaleTable

from deep_fourier.methods import METHODS

__all__ = ["Config", "Margins"]


@dataclass(frozen=True)
class Margins:
    """One line per margin: its source and calibration (RESULTS.md, "Calibration")."""

    dff_over_relu: float = 0.30  # spec claim 1: DFF last-5 >= ReLU last-5 + 0.30 on every seed
    dff_trainable: float = 0.95  # spec claim 1: DFF last-5 train accuracy >= 0.95
    relu_decay: float = 0.15  # spec claim 1: ReLU last-5 <= its best task - 0.15 (loss of plasticity shown)
    gate_learns: float = 0.5  # ours (gate): ReLU fits a task at 5x chance before it decays
    gate_decay: float = 0.05  # ours (gate, issue 30): ReLU online accuracy last-5 <= first-5 - 0.05
    reg_gain: float = 0.01  # spec claim 3: DFF+reg >= ReLU + 1 point (CI lower end)


@dataclass(frozen=True)
class Config(Scales):
    """Defaults are the full run; every method gets the same tasks, batches and init seed per seed
    (paired). Spec values unless marked."""

    widths: tuple[int, ...] = (128, 128)  # spec: 256, 256 post-activation widths; halved to fit 10 min
    batch_size: int = 64  # spec (a): batch 64, indices with replacement
    n_seeds: int = 3  # spec full: 3 seeds
    # (a) random-label memorisation (trainability probe)
    rl_methods: tuple[str, ...] = ("relu", "dff", "crelu", "sin")  # spec adds the L2-Init pair; cut to fit
    rl_n: int = 512  # spec (a): n = 512 images
    rl_tasks: int = 25  # spec (a): T = 25
    rl_steps: int = 250  # spec (a): S = 250
    rl_lr: float = 2e-3  # spec (a): Adam lr 2e-3
    # (b) permuted digits, long and harsh enough that ReLU's online accuracy decays (issue 30)
    perm_tasks: int = 30  # issue 30: at least 30 permuted tasks (spec: 10)
    perm_steps: int = 100  # spec: 300 per task; cut to fit (ReLU still decays: RESULTS.md, pilot)
    perm_lr: float = 1e-2  # issue 30: a higher lr than (a) so that ReLU decays
    # (c) diminishing label noise
    noise_tasks: int = 10  # spec (c): 10 tasks, noise 0.9 (1 - t/10)
    noise_steps: int = 150  # spec (b)/(c): 300 steps; cut to fit
    noise_lr: float = 1e-3  # ours (spec: Adam, lr not given)
    cl_methods: tuple[str, ...] = ("relu", "relu+l2init", "dff", "dff+l2init")  # spec (b)/(c)
    lam_grid: tuple[float, ...] = (1e-4, 1e-3, 1e-2)  # spec: lambda tuned on a validation split
    tune_seed: int = 1000  # validation tasks use their own permutations / noise draws
    margins: Margins = field(default_factory=Margins)

    SCALES: ClassVar[ScaleTable] = {
        # quick: about a minute: probe (a) only, one seed, ReLU / DFF / CReLU.
        "quick": {"n_seeds": 1, "rl_methods": ("relu", "dff", "crelu"), "perm_tasks": 0, "noise_tasks": 0},
        # smoke: seconds; its claims are not meaningful.
        "smoke": {
            "widths": (16, 16), "n_seeds": 2, "rl_methods": ("relu", "dff", "crelu"),
            "cl_methods": ("relu", "dff+l2init"), "rl_n": 64, "rl_tasks": 5, "rl_steps": 5, "perm_tasks": 5,
            "perm_steps": 5, "noise_tasks": 2, "noise_steps": 5, "lam_grid": (1e-3,),
        },
    }  # fmt: skip

    def __post_init__(self) -> None:
        check_int(self.n_seeds, "n_seeds", low=1)
        check_int(self.rl_tasks, "rl_tasks", low=5)
        for name, least in (("perm_tasks", 5), ("noise_tasks", 2)):
            n = check_int(getattr(self, name), name, low=0)
            if 0 < n < least:
                raise ValueError(f"{name} must be 0 (skip) or at least {least}, got {n}")
        unknown = (set(self.rl_methods) | set(self.cl_methods)) - set(METHODS)
        if unknown:
            raise ValueError(f"rl_methods/cl_methods have unknown methods {sorted(unknown)}")
        if not {"relu", "dff"} <= set(self.rl_methods):
            raise ValueError("rl_methods must include 'relu' and 'dff' (the claims compare them)")
        if (self.perm_tasks or self.noise_tasks) and not {"relu", "dff+l2init"} <= set(self.cl_methods):
            raise ValueError("cl_methods must include 'relu' and 'dff+l2init' (claim 3 compares them)")
