"""Running the experiment: the tiny instances (a) and every audited regression (b)–(d), into typed records.

``run_cases(config, seed=...)`` returns :class:`Records`; ``run(config, seed=..., device=...)`` wraps them,
with the claims and the tables, into a paperkit Report whose ``metrics["cases"]`` maps each Case to its
:class:`CaseRecord` (results.json keys them by ``str(case)``).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from paperkit import Report, track
from paperkit.validation import check_choice, check_seed
from threadpoolctl import threadpool_limits

from ols_certify import data
from ols_certify._problem import Problem, prepare
from ols_certify.acre import Threshold, certificate_from_problem
from ols_certify.baselines import amip_problem, brute_force_problem, freund_hopkins_problem, kzc21_problem
from ols_certify.reproduce.claims import claims
from ols_certify.reproduce.config import Case, Config
from ols_certify.reproduce.tables import certificate_table, notes, tiny_table

SPECTRAL_MAX_N = 1000  # cases up to this n also get ACRE with the spectral bound (official ACRE_spectral)

FloatArray = NDArray[np.float64]


@dataclass(frozen=True, eq=False)
class Curves:
    """Bounds and effects against k = 1..k_max (plots): ACRE's U(k), FH23's bound, KZC21's and AMIP's
    exact effects of their removal sets."""

    U: FloatArray
    fh: FloatArray
    kzc: FloatArray
    amip: FloatArray


@dataclass(frozen=True, eq=False)
class CaseRecord:
    """One audited regression: the fit, the threshold τ, ACRE's certificate k_LB (also with the spectral
    bound when n <= SPECTRAL_MAX_N), FH23's, and the removal sets KZC21 and AMIP found (None: none found
    with at most k_max removals)."""

    n: int
    d: int
    coef: str
    beta_e: float
    se_e: float
    threshold: str
    tau: float
    k_max: int
    k_lb: int
    k_lb_spectral: int | None
    exhausted: bool
    k_singular: int | None
    k_fh: int
    k_kzc: int | None
    k_amip: int | None
    curves: Curves


@dataclass(frozen=True)
class InstanceRecord:
    """One tiny instance against brute force: k_LB, the exact k_true (None: above tiny_k_max), the
    finders' k, soundness and the smallest slack min_k U(k) − brute-force max."""

    seed: int
    n: int
    d: int
    k_lb: int
    k_true: int | None
    k_kzc: int | None
    k_amip: int | None
    sound: bool
    min_slack: float


@dataclass(frozen=True, eq=False)
class TinyRecord:
    """Part (a): every instance, the soundness count, the (brute force, U(k)) points of the scatter plot
    (P, 2), and how often k_LB >= 2, k_true was found, and k_LB = k_true when it was."""

    instances: list[InstanceRecord]
    fraction_sound: float
    n_sound: int
    comparisons: int
    points: FloatArray
    fraction_k_lb_ge_2: float
    fraction_k_true_found: float
    exact_when_found: float


@dataclass(frozen=True, eq=False)
class Records:
    """Every part of one run: the tiny instances, each Case's record, k_max of the Gaussian runs, the
    smallest group of the fixed-effects design (None when not run) and the wall seconds per case (tables
    only: metrics are deterministic)."""

    seed: int
    tiny: TinyRecord
    cases: Mapping[Case, CaseRecord]
    k_max_gaussian: int
    smallest_group: int | None
    seconds: Mapping[Case, float]

    def pick(self, *kinds: str, d: int | None = None) -> list[tuple[Case, CaseRecord]]:
        """The (case, record) pairs of the given kinds (and Gaussian dimension), in run order."""
        return [(c, r) for c, r in self.cases.items() if c.kind in kinds and (d is None or c.d == d)]


def audit_case(p: Problem, threshold: Threshold, k_max: int) -> CaseRecord:
    """ACRE (and ACRE with the spectral bound when n is small), KZC21, AMIP and FH23 on one problem."""
    cert = certificate_from_problem(p, threshold, k_max)
    # the spectral Problem-1 bound (min with the triangle bound) needs dense n×n eigendecompositions
    spec = certificate_from_problem(p, threshold, k_max, spectral=True) if p.n <= SPECTRAL_MAX_N else None
    kz = kzc21_problem(p, k_max, cert.tau)
    am = amip_problem(p, k_max, cert.tau)
    fh = freund_hopkins_problem(p, k_max, cert.tau)
    return CaseRecord(
        n=p.n,
        d=p.fit.d,
        coef=p.fit.names[p.e],
        beta_e=cert.beta_e,
        se_e=cert.se_e,
        threshold=cert.threshold,
        tau=cert.tau,
        k_max=k_max,
        k_lb=cert.k_lb,
        k_lb_spectral=None if spec is None else spec.k_lb,
        exhausted=cert.exhausted,
        k_singular=cert.bounds.k_singular,
        k_fh=fh.k_lb,
        k_kzc=kz.k,
        k_amip=am.k,
        curves=Curves(U=cert.bounds.total, fh=fh.total, kzc=kz.effects, amip=am.effects),
    )


def tiny_instance(seed: int, k_max: int) -> tuple[InstanceRecord, FloatArray]:
    """One tiny planted regression against brute force over |T| <= k_max: its record and the finite
    (brute force, U(k)) pairs (P, 2)."""
    X, y, coef, names = data.tiny_instance(seed)
    p = prepare(X, y, coef, names)
    cert = certificate_from_problem(p, "sign", k_max)
    bf = brute_force_problem(p, k_max, cert.tau)
    kz = kzc21_problem(p, k_max, cert.tau)
    am = amip_problem(p, k_max, cert.tau)
    U, B = cert.bounds.total, bf.at_most
    tol = 1e-9 * max(1.0, abs(cert.tau))
    bound_ok = bool(np.all(B - tol <= U))
    kt = bf.k_true
    lb_ok = kt is None or cert.k_lb <= kt
    finders = [k for k in (kz.k, am.k) if k is not None]
    ub_ok = all(kt is not None and kt <= k for k in finders) and all(cert.k_lb <= k for k in finders)
    finite = np.isfinite(U) & np.isfinite(B)
    record = InstanceRecord(
        seed=seed,
        n=p.n,
        d=p.fit.d,
        k_lb=cert.k_lb,
        k_true=kt,
        k_kzc=kz.k,
        k_amip=am.k,
        sound=bound_ok and lb_ok and ub_ok,
        min_slack=float(np.min(U - B)) if U.size else 0.0,
    )
    return record, np.stack([B[finite], U[finite]], axis=1).astype(float)


def run_tiny(config: Config, seed: int) -> TinyRecord:
    """Part (a): instances ``seed, …, seed + n_tiny − 1`` against brute force (the soundness claim)."""
    rows, points = [], []
    for i in track(range(config.n_tiny), desc="tiny instances vs brute force"):
        row, pts = tiny_instance(seed + i, config.tiny_k_max)
        rows.append(row)
        points.append(pts)
    k_lb = np.array([r.k_lb for r in rows])
    n_sound = sum(r.sound for r in rows)
    return TinyRecord(
        instances=rows,
        fraction_sound=n_sound / config.n_tiny,
        n_sound=n_sound,
        comparisons=config.n_tiny * config.tiny_k_max,
        points=np.concatenate(points).reshape(-1, 2),
        fraction_k_lb_ge_2=float(np.mean(k_lb >= 2)),
        fraction_k_true_found=float(np.mean([r.k_true is not None for r in rows])),
        exact_when_found=float(
            np.mean([float(r.k_lb == r.k_true) for r in rows if r.k_true is not None] or [np.nan])
        ),
    )


def case_problem(case: Case, config: Config) -> tuple[Problem, Threshold, int, int | None]:
    """(the prepared problem, its threshold, its k_max, the smallest group for fixed effects) of a case."""
    if case.gaussian_data:
        assert case.d is not None and case.seed is not None  # set by Config.cases for these kinds
        planted = config.planted if case.kind == "planted" else 0.0
        X, y, coef, names = data.gaussian(config.gauss_n, case.d, case.seed, planted=planted)
        threshold: Threshold = ("se", config.se_multiple) if case.kind == "gaussian" else "sign"
        return prepare(X, y, coef, names), threshold, config.k_max_gaussian, None
    if case.kind == "diabetes":
        assert case.coef is not None
        X, y, coef, names = data.diabetes(case.coef)
        smallest = None
    else:
        assert case.seed is not None
        X, y, coef, names = data.fixed_effects(case.seed)
        smallest = int(X[:, 1:].sum(axis=0).min())
    return prepare(X, y, coef, names), "sign", int(config.k_max_factor * X.shape[0]), smallest


def run_cases(config: Config, *, seed: int = 0) -> Records:
    """Parts (a)–(d) of ``config`` with base seed ``seed``, on one BLAS thread (the machine is shared)."""
    check_seed(seed)
    with threadpool_limits(1):
        tiny = run_tiny(config, seed)
        cases: dict[Case, CaseRecord] = {}
        seconds: dict[Case, float] = {}
        smallest_group = None
        for case in track(config.cases(seed), desc="certificates"):
            t0 = time.perf_counter()
            problem, threshold, k_max, smallest = case_problem(case, config)
            cases[case] = audit_case(problem, threshold, k_max)
            smallest_group = smallest if smallest is not None else smallest_group
            seconds[case] = time.perf_counter() - t0
    return Records(seed, tiny, cases, config.k_max_gaussian, smallest_group, seconds)


def run(config: Config, *, seed: int = 0, device: str = "cpu") -> Report:
    """Run (a)–(d) and check the four claims of the spec.

    Args:
        config: the scale (``Config.quick()``, ``Config.full()``, ``Config.smoke()``).
        seed: base seed of the tiny instances (seed + i) and the Gaussian data (seed + s).
        device: only ``"cpu"`` (numpy).
    """
    try:
        check_choice(device, "device", ("cpu",))
    except ValueError as e:
        raise ValueError(f"ols-certify runs on the CPU only (numpy): {e}") from None
    records = run_cases(config, seed=seed)
    metrics: dict[str, object] = {
        "tiny": records.tiny,
        "cases": records.cases,
        "k_max_gaussian": records.k_max_gaussian,
    }
    if records.smallest_group is not None:
        metrics["fixed_effects_smallest_group"] = records.smallest_group
    return Report(
        metrics=metrics,
        claims=claims(records, config),
        tables={
            "Certificates and candidate sets": certificate_table(records),
            "Tiny instances vs brute force": tiny_table(records, config),
        },
        notes=notes(records, config),
    )


def records_of(report: Report) -> Records:
    """The typed records inside a Report made by :func:`run` (the table's seconds are not kept)."""
    m = report.metrics
    return Records(0, m["tiny"], m["cases"], m["k_max_gaussian"], m.get("fixed_effects_smallest_group"), {})
