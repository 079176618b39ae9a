"""Scales of the reproduction and the frozen claim margins (RESULTS.md, "Calibration")."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from paperkit import Scales, ScaleTable, check_int

from moral_rewards.ppo import PPOConfig
from moral_rewards.tiny import PretrainConfig

__all__ = ["Config", "Margins"]


@dataclass(frozen=True)
class Margins:
    """One line per margin: its source. The spec's thresholds are proposals (the paper states no margins)."""

    game_p_defect: float = 0.8  # spec claim 1: Game vs TFT P(D) >= 0.8
    de_p_defect_after_c: float = 0.10  # spec claim 2: De P(D | O's C) <= 0.10
    de_ratio: float = 0.25  # spec claim 2: ... and <= 0.25 x the Game run's value
    ut_p_coop: float = 0.8  # spec claim 3: Ut P(C) >= 0.8
    gde_drop: float = 0.2  # spec claim 4: Game+De P(D | C) lower than Game's by >= 0.2
    unlearn_before: float = 0.7  # spec claim 5: P(D | C) >= 0.7 just before the switch
    unlearn_after: float = 0.2  # spec claim 5: ... and <= 0.2 at the end
    illegal_after: float = 0.05  # spec claim 6: illegal rate <= 5% after any fine-tuning
    regret_gap: float = 1e-9  # spec claim 7: a strict ordering of De regrets (no margin stated): a tie fails
    base_illegal_max: float = 0.3  # ours (gate): the base answers legally at least 70% of the time
    base_balance: tuple[float, float] = (0.2, 0.8)  # ours (gate): base P(D) unsaturated
    peer_gap: float = 0.25  # ours: |PPO - tabular REINFORCE| on the final P(D | C) per reward


@dataclass(frozen=True)
class Config(Scales):
    """Defaults are the full run (spec "full mode", shortened to fit 10 CPU-minutes; README Deviations)."""

    SCALES: ClassVar[ScaleTable] = {
        # quick (~1 min): spec quick = IPD vs TFT, Game and De, 1 seed (50 episodes each, not 300); the same
        # numbers as seed 0 of the full run for these conditions (one code path, per-run seeds)
        "quick": {
            "n_seeds": 1,
            "rewards": ("game", "de"),
            "episodes": 50,
            "unlearn": (40, 40),
            "eval_games": ("IPD",),
        },
        # smoke (seconds, tests only; its claims mean nothing)
        "smoke": {
            "n_seeds": 1,
            "rewards": ("game", "de"),
            "episodes": 1,
            "unlearn": (1, 1),
            "n_base": 4,
            "pretrain": PretrainConfig(n_prompts=32, steps=2, batch_size=8, warmup_steps=0),
            "eval_games": ("IPD",),
            "n_eval": 4,
            "tabular_episodes": 10,
        },
    }

    n_seeds: int = 3  # spec full: 3 seeds (paper: 5 runs)
    rewards: tuple[str, ...] = ("game", "de", "ut", "game+de")  # paper Table 1
    opponent: str = "TFT"  # paper Fig. 2a
    episodes: int = 50  # spec full: 300 (paper 1000); what the shared machine allowed (RESULTS.md)
    unlearn: tuple[int, int] = (40, 40)  # spec: 150 + 150 (paper 500 + 500), Game -> De
    batch_size: int = 5  # official batch_size 5
    # 400 steps x 32 (12,800 prompts): the diagnosis run (RESULTS.md) brought the base's illegal rate from
    # 41% (100 steps) to 12%, near the corpus's 10% noise; quick and full share it (and the cached base)
    pretrain: PretrainConfig = field(default_factory=lambda: PretrainConfig(n_prompts=12_800, steps=400))
    ppo: PPOConfig = field(default_factory=PPOConfig)
    eval_games: tuple[str, ...] = ("IPD", "ISH", "ICN", "BOS", "ICD")  # paper Fig. 4
    eval_tokens: tuple[str, str] = ("action3", "action4")  # official test-time tokens
    n_eval: int = 30  # official: 50 test games vs Random
    n_base: int = 100  # ours: games of the base model vs the training opponent (the gate)
    tabular_episodes: int = 300
    tabular_lr: float = 0.5
    final_fraction: float = 0.2  # spec: final 20% of episodes
    margins: Margins = field(default_factory=Margins)

    def __post_init__(self) -> None:
        check_int(self.n_seeds, "n_seeds", low=1)
        check_int(self.episodes, "episodes", low=1)
        if "game" not in self.rewards:
            raise ValueError("rewards must include 'game' (the selfish baseline every claim compares with)")
