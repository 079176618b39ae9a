"""The experiment's design: its scale (Config), its cases (Case) and its claim margins (Margins)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Literal

from paperkit.scales import Scales, ScaleTable
from paperkit.validation import check_int, check_number, check_positive

from rslqr.methods import ALGORITHM_NAMES
from rslqr.systems import LEQRSystem, system_a, system_b

SystemName = Literal["A", "B"]


@dataclass(frozen=True)
class Case:
    """One (system, γ, learner) cell of the experiment; ``str(case)`` is its results.json key."""

    system: SystemName
    gamma: float
    algorithm: str

    @property
    def group(self) -> tuple[SystemName, float]:
        """The (system, γ) panel the case is plotted in."""
        return self.system, self.gamma

    def build_system(self, T: int) -> LEQRSystem:
        return system_a(gamma=self.gamma, T=T) if self.system == "A" else system_b(gamma=self.gamma, T=T)

    def __str__(self) -> str:
        return f"{self.system}/gamma={self.gamma:g}/{self.algorithm}"


@dataclass(frozen=True)
class Margins:
    """Claim margins, frozen from one calibration run (``rslqr reproduce --quick --seed 0``, 2026-11-29,
    RESULTS.md): each at most half the gap from the observed value to the rival growth rate's."""

    #: Theorem 1 (log N): observed slope 0.083, rival √N gives 0.5; half the gap is 0.21 -> 0.29.
    greedy_slope_max: float = 0.29
    #: Theorem 2 (√N): observed 0.489, rivals log N (0.083) and linear (1.0) -> [0.30, 0.70] (the spec's).
    noisy_slope_range: tuple[float, float] = (0.30, 0.70)
    #: Theorem 2, per doubling √2: observed 1.407, rivals 1 (log N) and 2 (linear) -> [1.21, 1.70].
    noisy_ratio_range: tuple[float, float] = (1.21, 1.70)
    #: Theorem 2 on System B: not calibrated (the full run observed +inf); the spec's proposal 0.70.
    noisy_b_slope_max: float = 0.70
    #: Every median claim fails when more than this share of seeds diverge (+inf regret). Ours: the
    #: theorems hold with high probability, and a median over 8 seeds stays two seeds away from the
    #: divergent ones at 1/4 (issue 20: 1 of 8 Algorithm 1 seeds diverges at quick scale).
    max_diverging_share: float = 0.25
    #: CE-LQR minus Algorithm 1, mean per-episode regret over the last doubling, median over paired
    #: seeds, must be at least this share of CE-LQR's exact floor (the per-episode regret of the
    #: risk-neutral gains of θ*; 0.0207 on System A at γ = 0.05). Ours; the spec: CE-LQR has linear regret.
    #: Asymptotically the excess tends to the floor itself; half of it (0.0103) is also below half the
    #: calibrated excess (0.048 / 2, quick, seed 0, 2026-12-01, RESULTS.md).
    ce_excess_share_of_floor: float = 0.5


@dataclass(frozen=True)
class Config(Scales):
    """The reproduction's scale and settings (defaults are the full run).

    Attributes:
        n_episodes: N, episodes per run.
        n_seeds: runs per learner; run i uses seed ``base_seed + i`` for θ̂^(1), x_0 and the noise.
        T: horizon (spec's pilot: 10).
        gamma: risk parameter of the claims. 0.05 is one of the spec's two pilot values; at 0.2 some
            controllers have a divergent criterion on the true system (see ``extra_gammas``).
        theta_init_scale: θ̂^(1) = θ* + scale·N(0, 1) entries (spec: 0.1).
        algorithms: learners run on System A (names of ``rslqr.methods.ALGORITHM_NAMES``).
        system_b: also run Algorithms 1 and 2 on System B (not identifiable by greedy data).
        extra_gammas: further risk levels at which System A is run and reported (no claims).
        slope_from: the smallest N of the fits (spec: never assert on N < 64).
        margins: the claims' margins (see :class:`Margins`).
    """

    n_episodes: int = 8192
    n_seeds: int = 8
    T: int = 10
    gamma: float = 0.05
    theta_init_scale: float = 0.1
    algorithms: tuple[str, ...] = ("alg1", "alg2", "ce_lqr", "fixed_initial")
    system_b: bool = True
    extra_gammas: tuple[float, ...] = (0.2,)
    slope_from: int = 64
    margins: Margins = field(default_factory=Margins)

    def __post_init__(self) -> None:
        slope_from = check_int(self.slope_from, "slope_from", low=1)
        check_int(self.n_episodes, "n_episodes", low=2 * slope_from)
        check_int(self.n_seeds, "n_seeds", low=1)
        check_int(self.T, "T", low=1)
        check_number(self.gamma, "gamma")
        check_positive(self.theta_init_scale, "theta_init_scale", strict=False)
        unknown = set(self.algorithms) - set(ALGORITHM_NAMES)
        if unknown:
            raise ValueError(
                f"algorithms must be names from {ALGORITHM_NAMES}, got unknown {sorted(unknown)}"
            )
        if not {"alg1", "alg2"} <= set(self.algorithms):
            raise ValueError("algorithms must include 'alg1' and 'alg2' (the claims are about them)")

    def cases(self) -> tuple[Case, ...]:
        """Every case, in run order: System A at γ, System B at γ, then System A at the extra γ's."""
        cases = [Case("A", self.gamma, a) for a in self.algorithms]
        if self.system_b:
            cases += [Case("B", self.gamma, a) for a in ("alg1", "alg2")]
        cases += [Case("A", g, a) for g in self.extra_gammas for a in ("alg1", "alg2", "ce_lqr")]
        return tuple(cases)

    SCALES: ClassVar[ScaleTable] = {
        # quick: About 40 s on 2 cores: System A at γ = 0.05, N = 2048, 8 seeds.
        "quick": {
            "n_episodes": 2048,
            "system_b": False,
            "extra_gammas": (),
        },
        # full (the defaults): About 5 min on 2 cores: N = 8192, Systems A and B, and System A again at γ =
        # 0.2.
        # smoke: Seconds: N = 128, 2 seeds; its claims are not meaningful.
        "smoke": {
            "n_episodes": 128,
            "n_seeds": 2,
            "algorithms": ("alg1", "alg2"),
            "system_b": False,
            "extra_gammas": (),
        },
    }
