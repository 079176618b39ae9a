"""Scales of the reproduction and the frozen claim margins (calibration: RESULTS.md)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
from paperkit import Scales, ScaleTable, check_int

from map_palette.training import LMConfig

__all__ = ["VALUE_NAMES", "Config", "Margins"]

#: data B's values (spec): positiveness and coherence are targeted; diversity and conciseness maintained.
VALUE_NAMES = ("positiveness", "conciseness", "diversity", "coherence")
TARGETED = ("positiveness", "coherence")


@dataclass(frozen=True)
class Margins:
    """One line per margin: its source (calibration runs: RESULTS.md)."""

    qp_rel: float = 1e-3  # spec claim 1: solver λ vs the QP optimum, relative
    is_z: float = 2.0  # spec claim 1: IS realised levels within 2 standard errors of μ + Σλ*
    duality_gap: float = 1e-6  # spec tests: KL(p_λ*) = g_n(λ*) at the optimum (float64)
    infeasible_rate: float = 1.0  # spec claim 2: 100 % of infeasible palettes reported infeasible
    feasible_tol: float = 1e-3  # spec claim 2: every constraint met within 1e-3 on feasible palettes
    kl_tol: float = 1e-6  # spec claim 3: no feasible random λ has a smaller KL than λ* (up to 1e-6)
    min_random_feasible: int = 10  # ours (gate of claim 3): enough random λ meet the palette to compare
    seq_rel: float = 1e-2  # spec claim 4: ‖λ_seq − λ*‖/‖λ*‖ after 5 rounds
    decode_z: float = 2.0  # spec claim 5: MAP meets c_i − 2 SE; equal weight misses one by > 2 SE
    grammatical: float = 0.5  # ours (gate): at least half of p0's samples parse under the toy grammar


@dataclass(frozen=True)
class Config(Scales):
    """Defaults are the full run (spec "full mode")."""

    n_gauss: int = 20_000  # spec data A: n = 20,000
    gauss_shift: tuple[float, ...] = (0.5, 0.3, -0.1)  # palette c = μ + shift (values 1, 2 active, 3 not)
    n_beta: int = 10_000  # bounded rewards for the feasibility claim (LP cost ~ n; 20k in the spec)
    n_palettes: int = 50  # spec claim 2: 50 infeasible and 50 feasible random palettes
    n_random_lambda: int = 200  # spec claim 3
    rounds: int = 5  # spec claim 4 / official default
    n_seeds: int = 3  # spec: 3 seeds full
    lm: LMConfig = field(default_factory=lambda: LMConfig(steps=300))
    lm_prompts: int = 300  # spec data B: 300 prompts x K = 16
    fresh_prompts: int = 300  # spec: MAP decoding on 300 fresh prompts
    k: int = 16
    max_new_tokens: int = 40
    quantiles: tuple[float, ...] = (0.5, 0.6, 0.7, 0.8)  # spec full: palettes at the 50/60/70/80 % quantiles
    claim_quantile: float = 0.6  # spec claim 5: the 60 % palette
    lm_seeds: int = 3  # spec claim 5: 1 seed quick, 3 seeds full
    embedding_coherence: bool = True  # MiniLM coherence when installed; False: the bag-of-words fallback
    skip_lm: bool = False  # data A only (no torch); the smoke scale, whose LM wiring tests run in-process
    margins: Margins = field(default_factory=Margins)

    def __post_init__(self) -> None:
        for name in (
            "n_gauss",
            "n_beta",
            "n_palettes",
            "n_random_lambda",
            "rounds",
            "n_seeds",
            "lm_prompts",
            "fresh_prompts",
            "k",
            "max_new_tokens",
            "lm_seeds",
        ):
            check_int(getattr(self, name), name, low=1)
        if self.claim_quantile not in self.quantiles:
            raise ValueError(
                f"claim_quantile {self.claim_quantile} must be one of quantiles {self.quantiles}"
            )
        if len(self.gauss_shift) != 3:
            raise ValueError("gauss_shift must have one entry per Gaussian value (3)")

    @property
    def shift(self) -> np.ndarray:
        return np.asarray(self.gauss_shift, float)

    SCALES: ClassVar[ScaleTable] = {
        # quick (spec): data A + a tiny LM trained ~20 s, 100 prompts x 16 samples, one LM seed
        "quick": {
            "n_beta": 3000,
            "lm": LMConfig(steps=130),
            "lm_prompts": 100,
            "fresh_prompts": 100,
            "quantiles": (0.6,),
            "lm_seeds": 1,
        },
        # smoke: seconds, no torch (the LM path is tested in-process); its claims are not meaningful
        "smoke": {
            "n_gauss": 2000,
            "n_beta": 1000,
            "n_palettes": 4,
            "n_random_lambda": 40,
            "n_seeds": 2,
            "lm": LMConfig(n_reviews=200, steps=3, batch_size=8, d_model=32, n_head=2, n_layer=1),
            "lm_prompts": 6,
            "fresh_prompts": 6,
            "k": 4,
            "max_new_tokens": 12,
            "quantiles": (0.6,),
            "lm_seeds": 1,
            "embedding_coherence": False,
            "skip_lm": True,
        },
    }
