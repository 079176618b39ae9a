"""Fair comparisons: paired seeds, bootstrap confidence intervals, rank correlations, claims on a CI
bound and tuning on a dev split with one grid for every method.

Pairing. :func:`over_seeds` calls ``fn(seed)`` once per seed; ``fn`` measures *every* method inside that
one call, so the seed gives each method the same initialisation, data order and noise. The per-seed
values are then paired by construction and :meth:`SeedTable.difference` works on ``a - b`` per seed.

Bootstrap (Efron & Tibshirani 1993, ch. 13-14). For a statistic ``t`` of a sample ``x`` of ``n`` units,
``B`` resamples ``x*_b`` (``n`` draws with replacement) give ``t*_b``. The percentile interval at level
``1 - alpha`` is ``[q(alpha/2), q(1 - alpha/2)]`` of the ``t*_b``. BCa replaces those quantile levels by
``Phi(z0 + (z0 + z) / (1 - a (z0 + z)))`` for ``z = Phi^-1(alpha/2), Phi^-1(1 - alpha/2)``, with the bias
correction ``z0 = Phi^-1(#{t*_b < t} / B)`` and the acceleration ``a = sum d^3 / (6 (sum d^2)^1.5)``,
``d_i = mean(t_(.)) - t_(i)`` from the jackknife. A 2-d sample ``(n_seeds, n_items)`` (the same test items
scored under each seed) is resampled two ways at once: rows (seeds) and columns (items), both with
replacement, and the statistic is the grand mean.

Rank correlations. Spearman's rho is Pearson's r of the average ranks; Kendall's tau-b is
``(C - D) / sqrt((n0 - n1)(n0 - n2))`` with ``n0 = n(n-1)/2`` and ``n1``, ``n2`` the tied pairs in x, y.

Everything random takes an explicit ``numpy.random.Generator``; nothing here prints or keeps state.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Any, Literal

import numpy as np

from paperkit.claims import Claim

Method = Literal["percentile", "bca"]
_METHODS = ("percentile", "bca")
_NORMAL = NormalDist()


@dataclass(frozen=True)
class Interval:
    """A point estimate with a confidence interval.

    Attributes:
        estimate: the statistic on the whole sample.
        low, high: the interval's ends.
        level: its nominal coverage, e.g. 0.95.
        method: how it was computed (``"percentile"``, ``"bca"``, ``"exact"`` for a single unit).
        n: the number of units (seeds, or seeds x items) it rests on.
    """

    estimate: float
    low: float
    high: float
    level: float
    method: str
    n: int

    def __str__(self) -> str:
        return f"{self.estimate:.4g} [{self.low:.4g}, {self.high:.4g}]"

    def to_dict(self) -> dict[str, float | str | int]:
        return {
            "estimate": self.estimate,
            "low": self.low,
            "high": self.high,
            "level": self.level,
            "method": self.method,
            "n": self.n,
        }


def _check_level(level: float) -> float:
    if not isinstance(level, (int, float)) or not 0.0 < float(level) < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    return float(level)


def _check_sample(values: Any, name: str = "values") -> np.ndarray:
    x = np.asarray(values, dtype=float)
    if x.ndim not in (1, 2) or x.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-d or 2-d (seeds, items) array, got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{name} must be finite (found NaN or inf)")
    return x


def _check_rng(rng: Any) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    return rng


def _bootstrap_means(x: np.ndarray, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """``(n_boot,)`` bootstrap means: units resampled in 1-d, rows and columns resampled in 2-d."""
    if x.ndim == 1:
        idx = rng.integers(0, x.shape[0], size=(n_boot, x.shape[0]))
        return x[idx].mean(axis=1)
    rows = rng.integers(0, x.shape[0], size=(n_boot, x.shape[0]))
    cols = rng.integers(0, x.shape[1], size=(n_boot, x.shape[1]))
    # Row then column gather, one resample at a time would loop; this is one fancy index of (B, r, c).
    return x[rows[:, :, None], cols[:, None, :]].mean(axis=(1, 2))


def _bca_levels(x: np.ndarray, boot: np.ndarray, estimate: float, alpha: float) -> tuple[float, float]:
    n = x.shape[0]
    below = float(np.mean(boot < estimate)) + 0.5 * float(np.mean(boot == estimate))
    below = min(max(below, 1.0 / (len(boot) + 1)), 1.0 - 1.0 / (len(boot) + 1))
    z0 = _NORMAL.inv_cdf(below)
    jack = (x.sum() - x) / (n - 1)  # leave-one-out means
    d = jack.mean() - jack
    denom = 6.0 * float(np.sum(d**2)) ** 1.5
    a = float(np.sum(d**3)) / denom if denom > 0 else 0.0
    out = []
    for z in (_NORMAL.inv_cdf(alpha / 2), _NORMAL.inv_cdf(1 - alpha / 2)):
        out.append(_NORMAL.cdf(z0 + (z0 + z) / (1 - a * (z0 + z))))
    return out[0], out[1]


def bootstrap_ci(
    values: Any,
    *,
    rng: np.random.Generator,
    level: float = 0.95,
    n_boot: int = 4000,
    method: Method = "percentile",
) -> Interval:
    """Bootstrap confidence interval of the mean of ``values``.

    Args:
        values: ``(n,)`` units, or ``(n_seeds, n_items)`` scores of the same items under each seed
            (resampled over seeds and items; statistic: the grand mean).
        rng: the generator of the resamples.
        level: nominal coverage in (0, 1).
        n_boot: number of resamples (>= 100).
        method: ``"percentile"`` or ``"bca"`` (BCa needs a 1-d sample).

    A single unit gives the degenerate interval ``[x, x]`` (method ``"exact"``): there is no spread
    to resample, and the caller should not read it as certainty.
    """
    x = _check_sample(values)
    level = _check_level(level)
    rng = _check_rng(rng)
    if not isinstance(n_boot, int) or n_boot < 100:
        raise ValueError(f"n_boot must be an int >= 100, got {n_boot!r}")
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}, got {method!r}")
    if method == "bca" and x.ndim != 1:
        raise ValueError("method='bca' needs a 1-d sample of values")
    estimate = float(x.mean())
    if x.shape[0] == 1 and (x.ndim == 1 or x.shape[1] == 1):
        return Interval(estimate, estimate, estimate, level, "exact", 1)
    boot = _bootstrap_means(x, n_boot, rng)
    alpha = 1.0 - level
    if method == "bca" and x.shape[0] > 2:
        lo_q, hi_q = _bca_levels(x, boot, estimate, alpha)
    else:
        lo_q, hi_q = alpha / 2, 1 - alpha / 2
    low, high = np.quantile(boot, [lo_q, hi_q])
    return Interval(estimate, float(low), float(high), level, method, int(x.size))


@dataclass(frozen=True)
class PairedDifference:
    """``a - b`` per paired unit (seed), with a bootstrap interval of its mean.

    Attributes:
        a, b: the two methods' names.
        differences: ``(n_seeds,)`` or ``(n_seeds, n_items)`` paired differences.
        interval: the bootstrap CI of the mean difference.
        seeds: the seeds the rows belong to (empty if not given).
    """

    a: str
    b: str
    differences: np.ndarray
    interval: Interval
    seeds: tuple[int, ...] = ()

    @property
    def per_seed(self) -> np.ndarray:
        """``(n_seeds,)`` mean difference of each seed."""
        d = self.differences
        return d if d.ndim == 1 else d.mean(axis=1)

    def verdicts(self, *, low: float | None = None, high: float | None = None) -> np.ndarray:
        """``(n_seeds,)`` bool: does each seed's difference lie in ``[low, high]``?"""
        if low is None and high is None:
            raise ValueError("verdicts needs low or high")
        d = self.per_seed
        ok = np.ones(d.shape, dtype=bool)
        if low is not None:
            ok &= d >= low
        if high is not None:
            ok &= d <= high
        return ok

    def details(self) -> dict[str, float]:
        """Numbers for a claim's ``details``: the mean, CI ends, and each seed's difference when the rows
        are seeds (``seeds`` given); otherwise only the number of paired units ``n``."""
        out = {
            "mean_difference": self.interval.estimate,
            "ci_low": self.interval.low,
            "ci_high": self.interval.high,
        }
        if not self.seeds:
            out["n"] = float(len(self.per_seed))
            return out
        out["n_seeds"] = float(len(self.seeds))
        for s, v in zip(self.seeds, self.per_seed, strict=True):
            out[f"seed{s}"] = float(v)
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "a": self.a,
            "b": self.b,
            "interval": self.interval.to_dict(),
            "per_seed": [float(v) for v in self.per_seed],
            "seeds": list(self.seeds),
        }


def paired_difference(
    a: Any,
    b: Any,
    *,
    rng: np.random.Generator,
    names: tuple[str, str] = ("a", "b"),
    seeds: Sequence[int] = (),
    level: float = 0.95,
    n_boot: int = 4000,
    method: Method = "percentile",
) -> PairedDifference:
    """Paired difference ``a - b`` (same shape: row i of each measured under seed i) and its bootstrap CI."""
    xa, xb = _check_sample(a, "a"), _check_sample(b, "b")
    if xa.shape != xb.shape:
        raise ValueError(f"a and b must be paired (same shape), got {xa.shape} and {xb.shape}")
    if seeds and len(seeds) != xa.shape[0]:
        raise ValueError(f"seeds has {len(seeds)} entries for {xa.shape[0]} rows")
    d = xa - xb
    ci = bootstrap_ci(d, rng=rng, level=level, n_boot=n_boot, method=method)
    return PairedDifference(names[0], names[1], d, ci, tuple(int(s) for s in seeds))


@dataclass(frozen=True)
class SeedTable:
    """Values of named quantities over seeds: ``values[name]`` is ``(n_seeds,)`` or ``(n_seeds, n_items)``."""

    seeds: tuple[int, ...]
    values: Mapping[str, np.ndarray] = field(default_factory=dict)

    def __getitem__(self, name: str) -> np.ndarray:
        if name not in self.values:
            raise KeyError(f"no quantity {name!r}; have {sorted(self.values)}")
        return self.values[name]

    def mean(self, name: str) -> float:
        return float(np.mean(self[name]))

    def difference(
        self,
        a: str,
        b: str,
        *,
        rng: np.random.Generator,
        level: float = 0.95,
        n_boot: int = 4000,
        method: Method = "percentile",
    ) -> PairedDifference:
        """Paired ``a - b`` over this table's seeds."""
        return paired_difference(
            self[a],
            self[b],
            rng=rng,
            names=(a, b),
            seeds=self.seeds,
            level=level,
            n_boot=n_boot,
            method=method,
        )

    def to_dict(self) -> dict[str, Any]:
        values = {k: np.asarray(v).tolist() for k, v in self.values.items()}
        return {"seeds": list(self.seeds), "values": values}


def over_seeds(fn: Callable[[int], Mapping[str, Any]], seeds: Sequence[int]) -> SeedTable:
    """Call ``fn(seed)`` for each seed and stack what it returns into a :class:`SeedTable`.

    ``fn`` returns ``{name: float or (n_items,) array}`` and must measure every compared method in the
    one call, from that seed: that is what makes the values paired.
    """
    seeds = tuple(int(s) for s in seeds)
    if not seeds:
        raise ValueError("seeds must be a non-empty sequence of ints")
    if len(set(seeds)) != len(seeds):
        raise ValueError(f"seeds must be distinct, got {seeds}")
    rows = [dict(fn(s)) for s in seeds]
    names = list(rows[0])
    for s, r in zip(seeds, rows, strict=True):
        if list(r) != names:
            raise ValueError(f"fn({s}) returned keys {sorted(r)}, expected {sorted(names)}")
    return SeedTable(seeds, {k: np.stack([np.asarray(r[k], dtype=float) for r in rows]) for k in names})


def ci_claim(
    name: str,
    statement: str,
    quantity: str,
    interval: Interval | PairedDifference,
    *,
    above: float | None = None,
    below: float | None = None,
    **kw: Any,
) -> Claim:
    """A claim on a CI bound: passes when the whole interval lies above ``above`` (or below ``below``).

    The claim's ``observed`` is the CI end that is checked (the lower end for ``above``); the estimate
    and both ends go into ``details`` (with each seed's difference for a :class:`PairedDifference`).
    """
    if (above is None) == (below is None):
        raise ValueError("ci_claim needs exactly one of above / below")
    bound = above if above is not None else below
    if bound is None or not math.isfinite(bound):
        raise ValueError(f"ci_claim bound must be finite, got {bound!r}")
    if isinstance(interval, PairedDifference):
        details: dict[str, float] = interval.details()
        ci = interval.interval
    else:
        ci = interval
        details = {"estimate": ci.estimate, "ci_low": ci.low, "ci_high": ci.high, "n": float(ci.n)}
    details.update({k: float(v) for k, v in dict(kw.pop("details", {})).items()})
    pct = f"{100 * ci.level:g}%"
    side = "lower" if above is not None else "upper"
    quantity = f"{side} end of the {pct} {ci.method} bootstrap CI of {quantity} (estimate {ci.estimate:.4g})"
    if above is not None:
        return Claim.at_least(name, statement, quantity, ci.low, above, details=details, **kw)
    return Claim.at_most(name, statement, quantity, ci.high, bound, details=details, **kw)


def _average_ranks(x: np.ndarray) -> np.ndarray:
    order = np.argsort(x, kind="mergesort")
    xs = x[order]
    # Tied runs share the mean of the ranks they span.
    starts = np.r_[0, np.flatnonzero(np.diff(xs)) + 1]
    ends = np.r_[starts[1:], len(xs)]
    run_rank = (starts + ends - 1) / 2.0 + 1.0
    ranks = np.empty(len(x))
    ranks[order] = np.repeat(run_rank, ends - starts)
    return ranks


def _check_pair(x: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    xa, ya = np.asarray(x, dtype=float).ravel(), np.asarray(y, dtype=float).ravel()
    if xa.shape != ya.shape or xa.size < 2:
        raise ValueError(f"x and y must have the same length >= 2, got {xa.size} and {ya.size}")
    if not (np.all(np.isfinite(xa)) and np.all(np.isfinite(ya))):
        raise ValueError("x and y must be finite")
    return xa, ya


def spearman(x: Any, y: Any) -> float:
    """Spearman's rank correlation (average ranks for ties); NaN when either side is constant."""
    xa, ya = _check_pair(x, y)
    rx, ry = _average_ranks(xa), _average_ranks(ya)
    rx, ry = rx - rx.mean(), ry - ry.mean()
    den = math.sqrt(float(rx @ rx) * float(ry @ ry))
    return float(rx @ ry) / den if den > 0 else math.nan


def kendall_tau(x: Any, y: Any) -> float:
    """Kendall's tau-b (ties corrected); NaN when either side is constant. O(n^2) memory."""
    xa, ya = _check_pair(x, y)
    i, j = np.triu_indices(len(xa), k=1)
    sx, sy = np.sign(xa[i] - xa[j]), np.sign(ya[i] - ya[j])
    n0 = len(i)
    n1, n2 = int(np.sum(sx == 0)), int(np.sum(sy == 0))
    den = math.sqrt(float(n0 - n1) * float(n0 - n2))
    return float(np.sum(sx * sy)) / den if den > 0 else math.nan


@dataclass(frozen=True)
class Tuned:
    """One method's tuning on the dev split.

    Attributes:
        method: the method's name.
        best: the chosen grid cell (its first occurrence on ties).
        best_score: its dev score.
        grid: every cell tried, in order (the same for every method).
        scores: the dev score of each cell (NaN counts as worst).
        fixed: the settings shared by every call (the budget: steps, epochs, data size).
    """

    method: str
    best: Mapping[str, Any]
    best_score: float
    grid: tuple[Mapping[str, Any], ...]
    scores: tuple[float, ...]
    fixed: Mapping[str, Any]

    def rows(self) -> list[dict[str, Any]]:
        """One table row a cell: method, the cell's settings, its dev score, whether it was chosen."""
        return [
            {"method": self.method, **cell, "dev_score": s, "chosen": cell == self.best}
            for cell, s in zip(self.grid, self.scores, strict=True)
        ]


def grid_cells(grid: Mapping[str, Sequence[Any]]) -> tuple[dict[str, Any], ...]:
    """The product of a grid ``{axis: values}``, in row-major order of the axes as given."""
    if not grid or any(len(v) == 0 for v in grid.values()):
        raise ValueError("grid must name at least one axis, each with at least one value")
    axes = list(grid)
    return tuple(dict(zip(axes, combo, strict=True)) for combo in itertools.product(*(grid[a] for a in axes)))


def tune(
    evaluate: Callable[[str, Mapping[str, Any]], float],
    methods: Sequence[str],
    grid: Mapping[str, Sequence[Any]],
    *,
    fixed: Mapping[str, Any] | None = None,
    maximize: bool = True,
) -> dict[str, Tuned]:
    """Pick each method's setting from the same grid on a dev split, with the same budget.

    ``evaluate(method, setting)`` trains ``method`` with ``setting = {**fixed, **cell}`` and returns its
    dev score (never the test score). Every method sees every cell of ``grid`` and the same ``fixed``
    settings, so neither gets more tuning than the other.
    """
    if not methods or len(set(methods)) != len(methods):
        raise ValueError(f"methods must be non-empty and distinct, got {list(methods)}")
    cells = grid_cells(grid)
    fixed = dict(fixed or {})
    clash = set(fixed) & set(grid)
    if clash:
        raise ValueError(f"fixed and grid both set {sorted(clash)}")
    out: dict[str, Tuned] = {}
    for m in methods:
        scores = tuple(float(evaluate(m, {**fixed, **c})) for c in cells)
        key = np.array([(s if maximize else -s) if math.isfinite(s) else -math.inf for s in scores])
        k = int(np.argmax(key))
        out[m] = Tuned(m, cells[k], scores[k], cells, scores, fixed)
    return out
