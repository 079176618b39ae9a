"""The experiment's design: its scale (Config), its audited regressions (Case) and the claims' margins."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Literal

from paperkit import Scales, ScaleTable
from paperkit.validation import check_bool, check_int, check_number, check_positive

CaseKind = Literal["gaussian", "planted", "diabetes", "fixed_effects"]


@dataclass(frozen=True)
class Case:
    """One audited regression of parts (b)–(d); ``str(case)`` is its results.json key.

    Attributes:
        kind: ``"gaussian"`` (independent labels, τ = c·SE), ``"planted"`` (y = planted·x₁ + noise,
            sign flip), ``"diabetes"`` (scikit-learn's data, sign flip) or ``"fixed_effects"`` (sign flip).
        d: the Gaussian dimension (gaussian, planted). seed: the data's seed (gaussian, planted,
            fixed_effects). coef: the diabetes coefficient audited. se_multiple: c of τ = c·SE (gaussian).
    """

    kind: CaseKind
    d: int | None = None
    seed: int | None = None
    coef: str | None = None
    se_multiple: float | None = None

    @property
    def gaussian_data(self) -> bool:
        """Data from ``data.gaussian`` (parts (b)): independent or planted labels."""
        return self.kind in ("gaussian", "planted")

    def __str__(self) -> str:
        if self.kind == "gaussian":
            return f"gaussian d={self.d} seed={self.seed} (τ = {self.se_multiple:g}·SE)"
        if self.kind == "planted":
            return f"planted d={self.d} seed={self.seed} (sign)"
        if self.kind == "diabetes":
            return f"diabetes {self.coef} (sign)"
        return f"fixed effects seed={self.seed} (sign)"


@dataclass(frozen=True)
class Margins:
    """The claims' bounds, frozen from one calibration run (``ols-certify reproduce --quick --seed 0``,
    2026-11-29, RESULTS.md "Calibration"): observed 1.0 / 15 / 1.069 / 3, each bound at most half the
    observed gap away from the observation, toward the rival."""

    #: Soundness (Theorem: U(k) is an upper bound): a hard gate, every instance sound; no margin.
    soundness_min: float = 1.0
    #: Non-triviality: observed min k_LB 15, rival the trivial k_LB = 1 -> (15 + 1)/2 = 8 (spec's 2: wider).
    nontrivial_min: float = 8.0
    #: Tightness k_KZC/k_LB: observed 1.069, rival FH23's 6.75 -> half-gap limit 3.91; the spec's 2.5 kept.
    tightness_max: float = 2.5
    #: Dominance k_LB(ACRE) − k_LB(FH23): observed 3, rival 0 (FH23 as strong) -> 1.5 (the spec's 0 is wider).
    dominance_min: float = 1.5


@dataclass(frozen=True)
class Config(Scales):
    """The reproduction's scale (defaults: the full run).

    Attributes:
        n_tiny: tiny instances (a); instance i uses seed ``seed + i``.
        tiny_k_max: brute force up to this k (spec: 4).
        gauss_n: n of the Gaussian data (b) (spec and official figure: 4000).
        gauss_dims: d of the independent-label Gaussian runs (the tightness claim uses d = 10).
        planted_dims, planted_seeds: d and number of seeds of the planted Gaussian runs (y = 0.1·x₁ + noise).
        n_seeds: seeds of each independent-label Gaussian d (spec: 3).
        planted: the planted coefficient (spec: 0.1).
        se_multiple: c of the τ = c·SE rule on Gaussian data (official synthetic figure: 2).
        diabetes_coefs: coefficients audited on the diabetes data (spec: bmi, s1), sign-flip threshold.
        fixed_effects: also run the fixed-effects design (d).
        k_max_factor: k_max = factor·n for (b)–(d) (official Problem1Params.k_max_factor = 0.1).
        margins: the claims' bounds (see :class:`Margins`).
    """

    n_tiny: int = 200
    tiny_k_max: int = 4
    gauss_n: int = 4000
    gauss_dims: tuple[int, ...] = (10, 50)
    planted_dims: tuple[int, ...] = (10, 50)
    planted_seeds: int = 3
    n_seeds: int = 3
    planted: float = 0.1
    se_multiple: float = 2.0
    diabetes_coefs: tuple[str, ...] = ("bmi", "s1")
    fixed_effects: bool = True
    k_max_factor: float = 0.1
    margins: Margins = field(default_factory=Margins)

    def __post_init__(self) -> None:
        check_int(self.n_tiny, "n_tiny", low=1)
        check_int(self.tiny_k_max, "tiny_k_max", low=1, high=6)
        for d in (*self.gauss_dims, *self.planted_dims):
            check_int(d, "gauss_dims and planted_dims entries", low=1)
        if 10 not in self.gauss_dims:
            raise ValueError("gauss_dims must include 10 (the tightness claim's dimension)")
        check_int(self.n_seeds, "n_seeds", low=1)
        check_int(self.planted_seeds, "planted_seeds", low=1)
        check_number(self.planted, "planted")
        check_positive(self.se_multiple, "se_multiple")
        check_bool(self.fixed_effects, "fixed_effects")
        check_number(self.k_max_factor, "k_max_factor", low=0, high=1, low_open=True, high_open=True)
        if check_int(self.gauss_n, "gauss_n", low=1) <= 2 * max((*self.gauss_dims, *self.planted_dims)):
            raise ValueError(f"gauss_n = {self.gauss_n} is too small for dimensions {self.gauss_dims}")

    @property
    def k_max_gaussian(self) -> int:
        """k_max of the Gaussian runs: ``k_max_factor · gauss_n``."""
        return int(self.k_max_factor * self.gauss_n)

    def cases(self, seed: int) -> tuple[Case, ...]:
        """Every audited regression of (b)–(d), in run order, for base seed ``seed``."""
        out = [
            Case("gaussian", d=d, seed=seed + s, se_multiple=self.se_multiple)
            for d in self.gauss_dims
            for s in range(self.n_seeds)
        ]
        out += [
            Case("planted", d=d, seed=seed + s) for d in self.planted_dims for s in range(self.planted_seeds)
        ]
        out += [Case("diabetes", coef=c) for c in self.diabetes_coefs]
        if self.fixed_effects:
            out.append(Case("fixed_effects", seed=seed))
        return tuple(out)

    SCALES: ClassVar[ScaleTable] = {
        # quick: about 40 s on 2 quiet cores: 40 tiny instances, Gaussian d = 10 (3 seeds) and planted d = 10
        # (1 seed) at n = 4000, diabetes.
        "quick": {
            "n_tiny": 40,
            "gauss_dims": (10,),
            "planted_dims": (10,),
            "planted_seeds": 1,
            "fixed_effects": False,
        },
        # full (the defaults): about 2–5 min: 200 tiny instances, Gaussian and planted d ∈ {10, 50} ×
        # 3 seeds, diabetes and the fixed-effects design.
        # smoke: seconds: 6 tiny instances, n = 400 Gaussian; its claims are not meaningful.
        "smoke": {
            "n_tiny": 6,
            "gauss_n": 400,
            "gauss_dims": (10,),
            "planted_dims": (10,),
            "planted_seeds": 1,
            "n_seeds": 1,
            "diabetes_coefs": ("bmi",),
            "fixed_effects": False,
        },
    }
