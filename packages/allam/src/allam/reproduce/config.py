"""Scales of the reproduction (token budgets per stage measured on this machine, RESULTS.md) and the
frozen claim margins."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from paperkit import Scales, ScaleTable, check_int, check_positive

from allam.align import ALIGN_METHODS, AlignConfig
from allam.data import WorldConfig
from allam.methods import VARIANTS, CPTConfig, ModelConfig

__all__ = ["QUICK_LR", "Config", "Margins"]

# The learning rates the full run's dev-world tuning chooses (runs 7 and pilot 7b: the tuning depends on
# the dev world only; RESULTS.md sections 16-17), for the quick scale.
QUICK_LR: tuple[tuple[str, float], ...] = (
    ("expand_mean", 1.6e-2), ("orig_tok", 8e-3), ("expand_random", 8e-3), ("no_replay", 1.6e-2),
    ("translation", 3.2e-2), ("align:sft", 3e-3), ("align:sft_dpo", 3e-3),
)  # fmt: skip


@dataclass(frozen=True)
class Margins:
    """One line per margin: its source and calibration (RESULTS.md, "Calibration")."""

    gate_em: float = 0.8  # issue 36: the A model answers >= 80 % of A questions before claims are judged
    fertility_ratio: float = 0.5  # spec claim 1: expanded B fertility <= 0.5 x A's tokenizer
    replay_rise: float = 1.05  # spec claim 2: held-out A bpb after CPT <= 1.05 x before, with replay
    # spec claim 2: without replay held-out A bpb rises >= 1.2 x; the claim's measurement until run 2,
    # now reported beside no-replay-forgets (the held-out probe falls under any CPT: RESULTS.md 3, 5, 7)
    no_replay_rise: float = 1.20
    # spec pitfalls ("measured on held-out A text *and* on A facts"); paper: English capability kept.
    # Ours: with replay, A QA exact match falls by at most 0.1 (pilot drops -0.05, 0, 0; RESULTS.md 7).
    replay_qa_drop: float = 0.10
    # spec claim 2 on A facts (the paper measures forgetting as English benchmark scores, not loss): base
    # A QA EM minus EM after CPT without replay. Pilot (seeds 100-102, RESULTS.md section 7): drops
    # 0.359, 0.974, 0.308; margin half of the smallest, rounded down.
    no_replay_qa_drop: float = 0.15
    init_gap: float = 0.0  # spec claim 3 (directional): bpb(random) - bpb(mean_subword) > 0, CI lower end
    # spec claim 4 (directional): B QA rank score on B-stated facts, expand_mean - orig_tok > 0 (until
    # run 2: final held-out B bpb, orig_tok - expand_mean, still reported; RESULTS.md section 7)
    efficiency_gap: float = 0.0
    transfer_gap: float = 0.0  # spec claim 5: rank-score gain from parallel data > 0 (spec: EM +10 pts)
    align_gain: float = 0.0  # abstract: aligned models improve in both languages (CI lower end > 0)
    dpo_gain: float = 0.0  # spec claim 6: SFT+DPO beats SFT alone at equal updates (CI lower end > 0)


@dataclass(frozen=True)
class Config(Scales):
    """Defaults are the full run (run 7: about 12 CPU-minutes, 7.5 wall-minutes on 2 workers; RESULTS.md
    has the measured stage costs)."""

    SCALES: ClassVar[ScaleTable] = {
        # quick: the full run's world and bases (shared cache entries: seeds 0, 1), a third of the CPT, two
        # seeds, no tuning stage (the lrs the full run's dev tuning chose). At 10 entities the gate
        # failed on seed 0 (A QA EM 0.78, RESULTS.md section 10).
        "quick": {
            "cpt": CPTConfig(steps=80),
            "tune": False,
            "chosen_lr": QUICK_LR,
            "variants": ("expand_mean", "orig_tok", "expand_random", "no_replay", "translation"),
            "init_step": 20,
            "every": 20,
            "n_seeds": 2,
        },
        # smoke (seconds, tests only; its claims mean nothing)
        "smoke": {
            "world": WorldConfig(n_entities=4),
            "model": ModelConfig(d_model=8, n_layer=1, n_head=2, seq_len=160),
            "pretrain_steps": 2,
            "cpt": CPTConfig(steps=2, batch_size=2, warmup=0),
            "variants": ("expand_mean", "orig_tok", "expand_random", "no_replay", "translation"),
            "init_step": 2,
            "every": 2,
            "pretrain_batch": 2,
            "vocab": 300,
            "lr_grid": (1e-3, 2e-3),
            "align_lr_grid": (1e-3,),
            "align": AlignConfig(steps=2, batch_size=4),
            "n_seeds": 2,
            "cache": False,
        },
    }  # fmt: skip

    world: WorldConfig = field(default_factory=lambda: WorldConfig(n_entities=12))  # spec 150; 2 shared cores
    model: ModelConfig = field(default_factory=ModelConfig)
    vocab: int = 512  # spec: BPE vocab 512 for A and for B
    pretrain_steps: int = 1500  # gate calibration (RESULTS.md 4): 1000 -> A QA EM 0.31-0.80, 1500 -> 1.0
    pretrain_batch: int = 8  # rows of 128 tokens: 1024 tokens a step
    pretrain_lr: float = 3e-3
    # 240 since run 7 (160 until run 6, when expand_mean's B-stated EM was 0.38 on seed 1): pilot P7/P10
    # (RESULTS.md 16), expand_mean at lr 1.6e-2 on the pilot and dev worlds: B-stated EM 0.86-0.97 after
    # 160 steps, 1.0 on all four after 240
    cpt: CPTConfig = field(default_factory=lambda: CPTConfig(steps=240))
    # Tuning (CONVENTIONS 3): every variant gets every CPT lr of the grid at the same budget on the dev
    # world (seed ``dev_seed``, disjoint from the judged seeds), scored by its final B QA rank score on
    # B-stated facts (runs 3-4: held-out B bits per byte, mostly the cost of one unseen word, which put
    # every choice on a grid edge: RESULTS.md 8-10); the alignment methods likewise over
    # ``align_lr_grid`` by held-out question QA rank score. Run 4's grid was 5e-4..8e-3; for run 6 it moves
    # one step up (orig_tok's best was the top edge in runs 3-5; D4: 1.6e-2 beats 8e-3 and 3.2e-2 on the
    # dev world; 5e-4 was never chosen by the run-5 score). Run 6 chose 1.6e-2, the top, for every variant,
    # so run 7's grid reaches 6.4e-2 (1e-3 dropped: never chosen under the run-5 score). Pilot 7b and P11
    # (RESULTS.md 16): on the dev world every variant scores lower at 6.4e-2 than at its best lr.
    lr_grid: tuple[float, ...] = (2e-3, 4e-3, 8e-3, 1.6e-2, 3.2e-2, 6.4e-2)
    dev_seed: int = 1000
    align: AlignConfig = field(default_factory=AlignConfig)
    align_lr_grid: tuple[float, ...] = (3e-4, 1e-3, 3e-3, 1e-2)
    tune: bool = True
    # Used when ``tune`` is False (quick, smoke): (name, lr) for every variant and "align:<method>".
    chosen_lr: tuple[tuple[str, float], ...] = ()
    variants: tuple[str, ...] = ("expand_mean", "orig_tok", "expand_random", "no_replay", "translation")
    init_step: int = 40  # spec claim 3: "after the first 200 CPT steps" (scaled to our CPT length)
    every: int = 40
    n_seeds: int = 3
    cache: bool = True  # reuse A-pretrained bases (paperkit.lm.cached_model)
    # processes over bases, tuning cells and seeds (one torch thread each; 2-core target); needs the cache
    workers: int = 2
    margins: Margins = field(default_factory=Margins)

    def __post_init__(self) -> None:
        check_int(self.n_seeds, "n_seeds", low=2)
        check_int(self.pretrain_steps, "pretrain_steps", low=1)
        for v in ("expand_mean", "orig_tok", "expand_random", "no_replay", "translation"):
            if v not in self.variants:
                raise ValueError(f"variants must include {v!r} (a claim compares it)")
        for v in self.variants:
            if v not in VARIANTS:
                raise ValueError(f"unknown variant {v!r}: expected some of {', '.join(VARIANTS)}")
        if not self.lr_grid or not self.align_lr_grid:
            raise ValueError("lr_grid and align_lr_grid must each hold at least one learning rate")
        for lr in (*self.lr_grid, *self.align_lr_grid):
            check_positive(lr, "lr_grid")
        check_int(self.dev_seed, "dev_seed", low=0)
        check_int(self.workers, "workers", low=1)
        if not self.tune:
            need = {*self.variants, *(f"align:{m}" for m in ALIGN_METHODS)}
            missing = need - {k for k, _ in self.chosen_lr}
            if missing:
                raise ValueError(f"chosen_lr lacks {sorted(missing)} (needed when tune is False)")
            for k, lr in self.chosen_lr:
                check_positive(lr, f"chosen_lr[{k!r}]")
        if self.init_step % self.every or self.cpt.steps % self.every:
            raise ValueError("init_step and cpt.steps must be multiples of every (the checkpoints)")
