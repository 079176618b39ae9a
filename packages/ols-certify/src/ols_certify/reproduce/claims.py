"""The paper's claims checked on a run: all claim text, each claim's source and margin, in one place."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from paperkit import Claim

from ols_certify.reproduce.config import Config

if TYPE_CHECKING:
    from ols_certify.reproduce.run import Records

#: Where each claim comes from (the README's "source" column).
SOURCES = {
    "soundness-vs-brute-force": "Section 3 (U(k) is a proof); the brute-force check is ours",
    "non-trivial-certificates": "abstract, Section 6",
    "tightness-vs-kzc21": "Section 7 (1 + o(1)); the margin 2.5 is the spec's",
    "acre-dominates-fh23": "Section 6; the synthetic figure (make_synthetic_acre_plot.py)",
}


def soundness_claim(records: Records, config: Config) -> Claim:
    """Every tiny instance: U(k) >= the brute-force maximum and k_LB <= k_true <= the finders' k."""
    tiny = records.tiny
    return Claim.at_least(
        "soundness-vs-brute-force",
        "ACRE's bound is sound: U(k) ≥ the exact maximal effect of any k removals, and "
        "k_LB ≤ k_true ≤ min(k_KZC, k_AMIP) (hard gate: every instance)",
        f"fraction of {config.n_tiny} tiny planted regressions (n ∈ [12, 20], d ∈ {{2, 3}}, half with t₃ "
        f"noise) where U(k) ≥ brute-force max over |T| ≤ k for every k ≤ {config.tiny_k_max} and "
        "k_LB ≤ k_true ≤ the KZC21/AMIP candidates (sign-flip threshold)",
        tiny.fraction_sound,
        config.margins.soundness_min,
        paper="always (Theorem: U(k) is an upper bound)",
        details={
            "instances": config.n_tiny,
            "sound": tiny.n_sound,
            "fraction_k_lb_ge_2": tiny.fraction_k_lb_ge_2,
            "min_slack": min(r.min_slack for r in tiny.instances),
        },
        note="A hard gate: a single unsound instance fails it. No margin: soundness is exact.",
    )


def nontrivial_claim(records: Records, config: Config) -> Claim:
    """The smallest k_LB over the planted Gaussian runs and diabetes ``bmi``."""
    picked = records.pick("planted") + [(c, r) for c, r in records.pick("diabetes") if c.coef == "bmi"]
    return Claim.at_least(
        "non-trivial-certificates",
        "ACRE gives non-trivial certificates (k_LB ≥ 2) for regressions of dimension ≥ 4",
        "minimum k_LB (sign flip) over diabetes `bmi` (d = 11, n = 442) and the planted Gaussian runs "
        f"(y = {config.planted:g}·x₁ + noise, n = {config.gauss_n}, d ∈ {list(config.planted_dims)})",
        min(r.k_lb for _, r in picked),
        config.margins.nontrivial_min,
        paper="k_LB ≥ 2 (first non-trivial certificates for d ≥ 4)",
        details={f"k_lb[{c}]": r.k_lb for c, r in records.cases.items() if any(r is q for _, q in picked)},
        note="Rival: the trivial certificate k_LB = 1. Bound frozen at the midpoint of the "
        "calibration run "
        "(observed 15): stricter than the paper's 'k_LB ≥ 2'.",
    )


def tightness_claim(records: Records, config: Config) -> Claim:
    """The largest k_KZC / k_LB over the independent-label Gaussian seeds at d = 10."""
    tight = [r for _, r in records.pick("gaussian", d=10)]
    ratios = [r.k_kzc / r.k_lb if r.k_kzc is not None and r.k_lb > 0 else np.inf for r in tight]
    fh_ratios = [r.k_kzc / r.k_fh if r.k_kzc is not None and r.k_fh else np.inf for r in tight]
    seed = records.seed
    return Claim.at_most(
        "tightness-vs-kzc21",
        "Under distributional assumptions ACRE is tight up to 1 + o(1) (Section 7): on Gaussian data the "
        "certified k_LB is close to the best removal set found",
        f"max over {config.n_seeds} seeds of k_KZC / k_LB, Gaussian X ~ N(0, 1/n), independent labels, "
        f"n = {config.gauss_n}, d = 10, τ = {config.se_multiple:g}·SE",
        max(ratios),
        config.margins.tightness_max,
        paper="1 + o(1) (asymptotic)",
        details={
            **{f"ratio_seed{seed + s}": r for s, r in enumerate(ratios)},
            **{f"fh_ratio_seed{seed + s}": r for s, r in enumerate(fh_ratios)},
        },
        note="Spec bound 2.5; rival: the FH23 certificate's ratio k_KZC / k_FH (see README calibration).",
    )


def dominance_claim(records: Records, config: Config) -> Claim:
    """The smallest k_LB(ACRE) − k_LB(FH23) over the Gaussian, planted and diabetes runs."""
    diffs = [r.k_lb - r.k_fh for kind in ("gaussian", "planted", "diabetes") for _, r in records.pick(kind)]
    return Claim.at_least(
        "acre-dominates-fh23",
        "ACRE's certificate is at least as strong as Freund & Hopkins' (FH23) on the same data",
        "minimum over the Gaussian (b) and diabetes (c) runs of k_LB(ACRE) − k_LB(FH23)",
        min(diffs),
        config.margins.dominance_min,
        paper="ACRE ≥ FH23 (FH23 needs strong assumptions and huge n)",
        details={"cases": len(diffs), "mean_difference": float(np.mean(diffs))},
        note="Rival: FH23 as strong as ACRE (difference 0); bound frozen at half the calibration gap (3).",
    )


def claims(records: Records, config: Config) -> list[Claim]:
    """Soundness (a), non-triviality (b, c), tightness (b) and dominance over FH23 (b, c)."""
    return [
        soundness_claim(records, config),
        nontrivial_claim(records, config),
        tightness_claim(records, config),
        dominance_claim(records, config),
    ]
