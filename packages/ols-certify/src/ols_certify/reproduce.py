"""The reproduction: soundness against brute force, non-triviality, tightness and dominance over FH23.

Spec §"Small-scale reproduction": (a) tiny planted regressions checked against brute force for k ≤ 4,
(b) the official Gaussian synthetic data (n = 4000) with independent and planted labels, (c) scikit-learn's
diabetes data, (d) a fixed-effects design (full run). ``run(config, seed=..., device=...)`` returns a
:class:`paperkit.Report`; ``plots(report)`` draws it.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from paperkit import Claim, Report, track

from ols_certify import data
from ols_certify._problem import Problem, prepare
from ols_certify.acre import Threshold, certificate_from_problem
from ols_certify.baselines import amip_problem, brute_force_problem, freund_hopkins_problem, kzc21_problem

if TYPE_CHECKING:
    from matplotlib.figure import Figure


SPECTRAL_MAX_N = 1000  # cases up to this n also get ACRE with the spectral bound (official ACRE_spectral)


@dataclass(frozen=True)
class Config:
    """The reproduction's scale (defaults: the full run) and its frozen claim margins.

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
    # Claim bounds, frozen from the calibration run recorded in the README (quick scale, seed 0).
    # Calibration (quick, seed 0, 2026-11-29): observed 1.0 / 15 / 1.069 / 3; rivals: an unsound instance /
    # the trivial k_LB = 1 / FH23's ratio k_KZC/k_FH = 6.75 / FH23 as strong (difference 0). Each bound is
    # at most half the observed gap away from the observation.
    soundness_min: float = 1.0  # hard gate: every instance sound (no margin)
    nontrivial_min: float = 8.0  # min k_LB ≥ 8 = (15 + 1)/2 (the spec's 2 would be a wider margin)
    tightness_max: float = 2.5  # spec's 2.5; half-gap limit (1.069 + 6.75)/2 = 3.91
    dominance_min: float = 1.5  # k_LB(ACRE) − k_LB(FH23) ≥ 1.5 = (3 + 0)/2 (spec: ≥ 0)

    def __post_init__(self) -> None:
        if self.n_tiny < 1:
            raise ValueError(f"n_tiny must be >= 1, got {self.n_tiny}")
        if not 1 <= self.tiny_k_max <= 6:
            raise ValueError(f"tiny_k_max must be in [1, 6] (brute force), got {self.tiny_k_max}")
        if 10 not in self.gauss_dims:
            raise ValueError("gauss_dims must include 10 (the tightness claim's dimension)")
        if self.n_seeds < 1 or self.planted_seeds < 1:
            raise ValueError("n_seeds and planted_seeds must be >= 1")
        if not 0 < self.k_max_factor < 1:
            raise ValueError(f"k_max_factor must be in (0, 1), got {self.k_max_factor}")
        if self.gauss_n <= 2 * max((*self.gauss_dims, *self.planted_dims)):
            raise ValueError(f"gauss_n = {self.gauss_n} is too small for dimensions {self.gauss_dims}")

    @classmethod
    def quick(cls) -> Config:
        """About 40 s on 2 quiet cores: 40 tiny instances, Gaussian d = 10 (3 seeds) and planted d = 10
        (1 seed) at n = 4000, diabetes."""
        return cls(n_tiny=40, gauss_dims=(10,), planted_dims=(10,), planted_seeds=1, fixed_effects=False)

    @classmethod
    def full(cls) -> Config:
        """About 2–5 min: 200 tiny instances, Gaussian and planted d ∈ {10, 50} × 3 seeds, diabetes and the
        fixed-effects design."""
        return cls()

    @classmethod
    def smoke(cls) -> Config:
        """Seconds: 6 tiny instances, n = 400 Gaussian; its claims are not meaningful."""
        return cls(
            n_tiny=6,
            gauss_n=400,
            gauss_dims=(10,),
            planted_dims=(10,),
            planted_seeds=1,
            n_seeds=1,
            diabetes_coefs=("bmi",),
            fixed_effects=False,
        )


@contextlib.contextmanager
def _one_thread() -> Iterator[None]:
    """Single-threaded BLAS (the machine is shared); threadpoolctl ships with scikit-learn."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover
        yield
        return
    with threadpool_limits(1):
        yield


def _k(x: int | None) -> int | str:
    return "none ≤ k_max" if x is None else x


def _audit_case(p: Problem, threshold: Threshold, k_max: int) -> dict[str, Any]:
    cert = certificate_from_problem(p, threshold, k_max)
    # the spectral Problem-1 bound (min with the triangle bound) needs dense n×n eigendecompositions
    spec = certificate_from_problem(p, threshold, k_max, spectral=True) if p.n <= SPECTRAL_MAX_N else None
    kz = kzc21_problem(p, k_max, cert.tau)
    am = amip_problem(p, k_max, cert.tau)
    fh = freund_hopkins_problem(p, k_max, cert.tau)
    return {
        "n": p.n,
        "d": p.fit.d,
        "coef": p.fit.names[p.e],
        "beta_e": cert.beta_e,
        "se_e": cert.se_e,
        "threshold": cert.threshold,
        "tau": cert.tau,
        "k_max": k_max,
        "k_lb": cert.k_lb,
        "k_lb_spectral": None if spec is None else spec.k_lb,
        "exhausted": cert.exhausted,
        "k_singular": cert.bounds.k_singular,
        "k_fh": fh.k_lb,
        "k_kzc": kz.k,
        "k_amip": am.k,
        "curves": {
            "U": cert.bounds.total,
            "fh": fh.total,
            "kzc": kz.effects,
            "amip": am.effects,
        },
    }


def _tiny(config: Config, seed: int) -> dict[str, Any]:
    """Claim 1: soundness of every tiny instance against brute force."""
    K = config.tiny_k_max
    rows, points = [], []
    n_sound = 0
    for i in track(range(config.n_tiny), desc="tiny instances vs brute force"):
        X, y, coef, names = data.tiny_instance(seed + i)
        p = prepare(X, y, coef, names)
        cert = certificate_from_problem(p, "sign", K)
        bf = brute_force_problem(p, K, cert.tau)
        kz = kzc21_problem(p, K, cert.tau)
        am = amip_problem(p, K, cert.tau)
        U, B = cert.bounds.total, bf.at_most
        tol = 1e-9 * max(1.0, abs(cert.tau))
        bound_ok = bool(np.all(B - tol <= U))
        kt = bf.k_true
        lb_ok = kt is None or cert.k_lb <= kt
        finders = [k for k in (kz.k, am.k) if k is not None]
        ub_ok = all(kt is not None and kt <= k for k in finders) and all(cert.k_lb <= k for k in finders)
        sound = bound_ok and lb_ok and ub_ok
        n_sound += sound
        finite = np.isfinite(U) & np.isfinite(B)
        points += [(float(b), float(u)) for b, u in zip(B[finite], U[finite], strict=True)]
        rows.append(
            {
                "seed": seed + i,
                "n": p.n,
                "d": p.fit.d,
                "k_lb": cert.k_lb,
                "k_true": kt,
                "k_kzc": kz.k,
                "k_amip": am.k,
                "sound": sound,
                "min_slack": float(np.min(U - B)) if U.size else 0.0,
            }
        )
    k_lb = np.array([r["k_lb"] for r in rows])
    return {
        "instances": rows,
        "fraction_sound": n_sound / config.n_tiny,
        "n_sound": n_sound,
        "comparisons": config.n_tiny * K,
        "points": np.array(points).reshape(-1, 2),
        "fraction_k_lb_ge_2": float(np.mean(k_lb >= 2)),
        "fraction_k_true_found": float(np.mean([r["k_true"] is not None for r in rows])),
        "exact_when_found": float(
            np.mean([float(r["k_lb"] == r["k_true"]) for r in rows if r["k_true"] is not None] or [np.nan])
        ),
    }


def run(config: Config, *, seed: int = 0, device: str = "cpu") -> Report:
    """Run (a)–(d) and check the four claims of the spec.

    Args:
        config: the scale (``Config.quick()``, ``Config.full()``, ``Config.smoke()``).
        seed: base seed of the tiny instances (seed + i) and the Gaussian data (seed + s).
        device: only ``"cpu"`` (numpy).
    """
    if device != "cpu":
        raise ValueError(f"ols-certify runs on the CPU only (numpy), got device={device!r}")
    with _one_thread():
        return _run(config, seed)


def _run(config: Config, seed: int) -> Report:
    tiny = _tiny(config, seed)
    n = config.gauss_n
    k_max = int(config.k_max_factor * n)
    se_rule = ("se", config.se_multiple)
    cases: dict[str, dict[str, Any]] = {}
    seconds: dict[str, float] = {}  # wall time per case (tables only: metrics must be deterministic)
    jobs: list[tuple[str, Any]] = []
    for d in config.gauss_dims:
        for s in range(config.n_seeds):
            jobs.append(
                (f"gaussian d={d} seed={seed + s} (τ = {config.se_multiple:g}·SE)", ("g", d, seed + s))
            )
    for d in config.planted_dims:
        for s in range(config.planted_seeds):
            jobs.append((f"planted d={d} seed={seed + s} (sign)", ("p", d, seed + s)))
    for c in config.diabetes_coefs:
        jobs.append((f"diabetes {c} (sign)", ("diabetes", c)))
    if config.fixed_effects:
        jobs.append((f"fixed effects seed={seed} (sign)", ("fe", seed)))
    for name, job in track(jobs, desc="certificates"):
        t0 = time.perf_counter()
        if job[0] in ("g", "p"):
            X, y, coef, names = data.gaussian(
                n, job[1], job[2], planted=config.planted if job[0] == "p" else 0.0
            )
            cases[name] = _audit_case(prepare(X, y, coef, names), se_rule if job[0] == "g" else "sign", k_max)
        elif job[0] == "diabetes":
            X, y, coef, names = data.diabetes(job[1])
            cases[name] = _audit_case(
                prepare(X, y, coef, names), "sign", int(config.k_max_factor * X.shape[0])
            )
        else:
            X, y, coef, names = data.fixed_effects(job[1])
            case = _audit_case(prepare(X, y, coef, names), "sign", int(config.k_max_factor * X.shape[0]))
            case["smallest_group"] = int(X[:, 1:].sum(axis=0).min())
            cases[name] = case
        seconds[name] = time.perf_counter() - t0

    def pick(prefix: str) -> list[dict[str, Any]]:
        return [c for k, c in cases.items() if k.startswith(prefix)]

    tight = pick("gaussian d=10 ")
    ratios = [c["k_kzc"] / c["k_lb"] if c["k_kzc"] is not None and c["k_lb"] > 0 else np.inf for c in tight]
    fh_ratios = [c["k_kzc"] / c["k_fh"] if c["k_kzc"] is not None and c["k_fh"] else np.inf for c in tight]
    nontriv = pick("planted") + [cases[f"diabetes {c} (sign)"] for c in config.diabetes_coefs if c == "bmi"]
    dom = pick("gaussian") + pick("planted") + pick("diabetes")
    dom_diff = [c["k_lb"] - c["k_fh"] for c in dom]
    claims = [
        Claim.at_least(
            "soundness-vs-brute-force",
            "ACRE's bound is sound: U(k) ≥ the exact maximal effect of any k removals, and "
            "k_LB ≤ k_true ≤ min(k_KZC, k_AMIP) (hard gate: every instance)",
            f"fraction of {config.n_tiny} tiny planted regressions (n ∈ [12, 20], d ∈ {{2, 3}}, half with t₃ "
            f"noise) where U(k) ≥ brute-force max over |T| ≤ k for every k ≤ {config.tiny_k_max} and "
            "k_LB ≤ k_true ≤ the KZC21/AMIP candidates (sign-flip threshold)",
            tiny["fraction_sound"],
            config.soundness_min,
            paper="always (Theorem: U(k) is an upper bound)",
            details={
                "instances": config.n_tiny,
                "sound": tiny["n_sound"],
                "fraction_k_lb_ge_2": tiny["fraction_k_lb_ge_2"],
                "min_slack": min(r["min_slack"] for r in tiny["instances"]),
            },
            note="A hard gate: a single unsound instance fails it. No margin: soundness is exact.",
        ),
        Claim.at_least(
            "non-trivial-certificates",
            "ACRE gives non-trivial certificates (k_LB ≥ 2) for regressions of dimension ≥ 4",
            "minimum k_LB (sign flip) over diabetes `bmi` (d = 11, n = 442) and the planted Gaussian runs "
            f"(y = {config.planted:g}·x₁ + noise, n = {n}, d ∈ {list(config.planted_dims)})",
            min(c["k_lb"] for c in nontriv),
            config.nontrivial_min,
            paper="k_LB ≥ 2 (first non-trivial certificates for d ≥ 4)",
            details={f"k_lb[{k}]": v["k_lb"] for k, v in cases.items() if v in nontriv},
            note="Rival: the trivial certificate k_LB = 1. Bound frozen at the midpoint of the "
            "calibration run "
            "(observed 15): stricter than the paper's 'k_LB ≥ 2'.",
        ),
        Claim.at_most(
            "tightness-vs-kzc21",
            "Under distributional assumptions ACRE is tight up to 1 + o(1) (Section 7): on Gaussian data the "
            "certified k_LB is close to the best removal set found",
            f"max over {config.n_seeds} seeds of k_KZC / k_LB, Gaussian X ~ N(0, 1/n), independent labels, "
            f"n = {n}, d = 10, τ = {config.se_multiple:g}·SE",
            max(ratios),
            config.tightness_max,
            paper="1 + o(1) (asymptotic)",
            details={
                **{f"ratio_seed{seed + s}": r for s, r in enumerate(ratios)},
                **{f"fh_ratio_seed{seed + s}": r for s, r in enumerate(fh_ratios)},
            },
            note="Spec bound 2.5; rival: the FH23 certificate's ratio k_KZC / k_FH (see README calibration).",
        ),
        Claim.at_least(
            "acre-dominates-fh23",
            "ACRE's certificate is at least as strong as Freund & Hopkins' (FH23) on the same data",
            "minimum over the Gaussian (b) and diabetes (c) runs of k_LB(ACRE) − k_LB(FH23)",
            min(dom_diff),
            config.dominance_min,
            paper="ACRE ≥ FH23 (FH23 needs strong assumptions and huge n)",
            details={"cases": len(dom), "mean_difference": float(np.mean(dom_diff))},
            note="Rival: FH23 as strong as ACRE (difference 0); bound frozen at half the calibration "
            "gap (3).",
        ),
    ]

    table = [
        {
            "case": name,
            "n": c["n"],
            "d": c["d"],
            "β_e": c["beta_e"],
            "SE": c["se_e"],
            "τ": c["tau"],
            "k_LB ACRE": f"{c['k_lb']}" + ("+" if c["exhausted"] else ""),
            "k_LB ACRE+spectral": "-" if c["k_lb_spectral"] is None else c["k_lb_spectral"],
            "k_LB FH23": c["k_fh"],
            "k AMIP": _k(c["k_amip"]),
            "k KZC21": _k(c["k_kzc"]),
            "k_singular": c["k_singular"] if c["k_singular"] is not None else "-",
            "seconds (all methods)": seconds[name],
        }
        for name, c in cases.items()
    ]
    tiny_table = [
        {
            "instances": config.n_tiny,
            "sound": tiny["n_sound"],
            "k_LB ≥ 2": f"{tiny['fraction_k_lb_ge_2']:.0%}",
            f"k_true ≤ {config.tiny_k_max} found": f"{tiny['fraction_k_true_found']:.0%}",
            "k_LB = k_true (when found)": f"{tiny['exact_when_found']:.0%}",
            "min U(k) − brute force": min(r["min_slack"] for r in tiny["instances"]),
        }
    ]
    notes = [
        "k_LB: no set of fewer removals moves β_e by τ toward zero (certified); k AMIP / k KZC21: "
        "removal sets "
        "found whose exact refit reaches τ (so the truth lies in [k_LB, min(k AMIP, k KZC21)]). '+' marks a "
        "certificate that reached k_max. A removal making XᵀX singular counts as reaching τ.",
        "Timings are wall-clock on a 2-core machine shared with other jobs.",
    ]
    if config.fixed_effects:
        fe = cases[f"fixed effects seed={seed} (sign)"]
        notes.append(
            f"Fixed effects (d): the smallest group has {fe['smallest_group']} rows and ACRE's bound "
            "becomes +inf "
            f"at k = {fe['k_singular']} (removing that group makes XᵀX singular), "
            f"so k_LB ≤ {fe['smallest_group']}"
            " whatever the data: the case OHARE (Section 4, not implemented) is for."
        )
    metrics = {"tiny": tiny, "cases": cases, "k_max_gaussian": k_max}
    return Report(
        metrics=metrics,
        claims=claims,
        tables={"Certificates and candidate sets": table, "Tiny instances vs brute force": tiny_table},
        notes=notes,
    )


def plots(report: Report) -> dict[str, Figure]:
    """The official synthetic figure (bounds vs k) for the first Gaussian run and diabetes `bmi`, and the
    soundness scatter of U(k) against the brute-force maximum on the tiny instances."""
    from matplotlib.figure import Figure

    from ols_certify.audit import plot_curves

    cases: Mapping[str, Any] = report.metrics["cases"]
    figs: dict[str, Figure] = {}
    for key, fname in (
        (next(k for k in cases if k.startswith("gaussian d=10")), "bounds_gaussian_d10"),
        (next((k for k in cases if k.startswith("diabetes bmi")), None), "bounds_diabetes_bmi"),
    ):
        if key is None:
            continue
        c = cases[key]
        cv = c["curves"]
        figs[fname] = plot_curves(
            np.asarray(cv["U"], dtype=float),
            float(c["tau"]),
            int(c["k_lb"]),
            c["threshold"].split(":")[0],
            amip=cv["amip"],
            kzc=cv["kzc"],
            fh=cv["fh"],
            title=key,
        )
    pts = np.asarray(report.metrics["tiny"]["points"], dtype=float).reshape(-1, 2)
    fig = Figure(figsize=(5.5, 5))
    ax = fig.add_subplot()
    ok = (pts[:, 0] > 0) & (pts[:, 1] > 0)
    ax.loglog(
        pts[ok, 0], pts[ok, 1], ".", ms=3, alpha=0.5, label="(brute force, ACRE U(k)) per instance and k"
    )
    if ok.any():
        lo, hi = pts[ok].min(), pts[ok].max()
        ax.loglog([lo, hi], [lo, hi], "k-", lw=1, label="U(k) = exact maximum (sound above)")
    ax.set_xlabel("exact max move of β_e over |T| ≤ k (brute force)")
    ax.set_ylabel("ACRE bound U(k)")
    ax.set_title("soundness on the tiny instances (finite bounds)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    figs["soundness_tiny"] = fig
    return figs


__all__ = ["Config", "plots", "run"]
