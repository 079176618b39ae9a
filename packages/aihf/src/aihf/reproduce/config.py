"""Scales of the reproduction (quick / full / smoke) and its frozen margins.

Every margin has one line: where it comes from and the calibration run it was checked against
(RESULTS.md, "Calibration"). Margins are never moved to make a run pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from paperkit.scales import Scales, ScaleTable
from paperkit.validation import check_int, check_positive

from aihf.continuous import ContinuousConfig

REGIMES = {"A/scarce": (0.0, 10), "A/rich": (0.0, 200), "B/scarce": (0.3, 10), "B/rich": (0.3, 200)}


@dataclass(frozen=True)
class Margins:
    """The claims' bounds (frozen; see RESULTS.md for the calibration runs).

    Attributes:
        scarce_gain_min: claim 1, AIHF − RLHF on A/scarce >= 0.10 (spec; calibration +0.758, half 0.379).
        match_tol: claims 2 and 3, non-inferiority tolerance 0.03 (spec).
        oracle_gate_min: the Reacher gate, Oracle − start (BC) >= 0.10 in zero-torque-normalised score:
            a budget that cannot move the true-reward policy by the size of the effect we test (the policy
            claim's 0.10) cannot resolve it (ours; not calibrated, it is the policy claim's own margin).
        reacher_gain_min: Reacher policy claim, AIHF − RLHF >= 0.10 (spec proposal), only if the gate passes.
        reacher_score_min: Reacher policy claim, AIHF >= 0.5 (spec's proposal), only if the gate passes.
        rank_gain_min: Reacher reward claim at |P| = 30: the lower end of the 95 % bootstrap CI of AIHF's
            expert-over-zero-torque ranking rate minus the Bradley–Terry reward's (seeds x targets) must
            reach 0.05, one target in 20 (the item set's resolution); ours, not calibrated.
        rank_rich_min: Reacher gate of the reward claim: the lower CI end of the Bradley–Terry reward's
            ranking rate at |P| = 300 must reach chance, 0.5 (ours, not calibrated).
    """

    scarce_gain_min: float = 0.10
    match_tol: float = 0.03
    oracle_gate_min: float = 0.10
    reacher_gain_min: float = 0.10
    reacher_score_min: float = 0.5
    rank_gain_min: float = 0.05
    rank_rich_min: float = 0.5


@dataclass(frozen=True)
class Config(Scales):
    """Scale and settings (defaults: the full run).

    Attributes:
        n_seeds: seeds per tabular regime (spec: 5); seed i uses ``seed + i``.
        n_demos: |D| (spec: 20).
        lam, beta, steps, lr: λ = 20, β = 0.1 (spec pilot), 300 reward steps (spec pilot), Adam lr 0.05.
        regimes: which of ``REGIMES`` run (A/scarce and A/rich are required by the claims).
        lam_sweep: extra λ values run on regime A (spec: sweep {1, 10, 30}); reported, not claimed.
        one_hot: run the one-hot reward variant (5 demos, 10 pairs, uniform evaluation start); reported.
        robust_seeds: seeds of an extra A/scarce run (reported) showing how much claim 1's 5-seed mean
            depends on the draw of the 10 pairs; 0 skips it.
        reacher_seeds: paired seeds of the MuJoCo Reacher-v5 part (spec: 2; 3 here, the minimum for a
            paired comparison; 0 skips Reacher).
        reacher_pairs: |P| of the reward-level claim (spec: 30 scarce; 300 rich); the policy-level
            comparison uses the first. The 30 pairs are the first 30 of the 300 (nested sets).
        reward_targets: held-out Reacher targets of the reward-level claim.
        reacher: the per-method training settings (5k env steps: a quarter of the spec's 20k; λ = 30, the
            largest of the spec's sweep, since the demonstration term carries 1/β = 20 and 50 steps).
        margins: the frozen claim bounds.
    """

    n_seeds: int = 5
    n_demos: int = 20
    lam: float = 20.0
    beta: float = 0.1
    steps: int = 300
    lr: float = 0.05
    regimes: tuple[str, ...] = tuple(REGIMES)
    lam_sweep: tuple[float, ...] = (1.0, 10.0, 30.0)
    one_hot: bool = True
    robust_seeds: int = 20
    reacher_seeds: int = 3
    reacher_pairs: tuple[int, ...] = (30, 300)
    reward_targets: int = 20
    reacher: ContinuousConfig = field(default_factory=lambda: ContinuousConfig(env_steps=5000, lam=30.0))
    margins: Margins = field(default_factory=Margins)

    def __post_init__(self) -> None:
        for name in ("n_seeds", "n_demos", "steps"):
            check_int(getattr(self, name), name, low=1)
        check_positive(self.lam, "lam", strict=False)
        for x in self.lam_sweep:
            check_positive(x, "lam_sweep entries", strict=False)
        unknown = set(self.regimes) - set(REGIMES)
        if unknown:
            raise ValueError(f"unknown regimes {sorted(unknown)}; expected names from {list(REGIMES)}")
        if not {"A/scarce", "A/rich"} <= set(self.regimes):
            raise ValueError("regimes must include 'A/scarce' and 'A/rich' (the claims are about them)")
        check_int(self.reacher_seeds, "reacher_seeds", low=0)
        check_int(self.reward_targets, "reward_targets", low=1)
        if len(self.reacher_pairs) != 2 or not 0 < self.reacher_pairs[0] < self.reacher_pairs[1]:
            raise ValueError(
                f"reacher_pairs must be (scarce, rich) with 0 < scarce < rich, got {self.reacher_pairs}"
            )

    SCALES: ClassVar[ScaleTable] = {
        # quick: About 30 s on 2 cores: the 4 tabular regimes x 5 seeds; no sweep, no variant, no Reacher.
        "quick": {
            "lam_sweep": (),
            "one_hot": False,
            "robust_seeds": 0,
            "reacher_seeds": 0,
        },
        # full (the defaults): The tabular regimes, the λ sweep, the one-hot variant, the 20-seed rerun and
        # Reacher-v5.
        # smoke: Seconds: regime A only, 1 seed, 20 reward steps; its claims are not meaningful.
        "smoke": {
            "n_seeds": 1,
            "steps": 20,
            "regimes": ("A/scarce", "A/rich"),
            "lam_sweep": (),
            "one_hot": False,
            "robust_seeds": 0,
            "reacher_seeds": 0,
        },
    }
