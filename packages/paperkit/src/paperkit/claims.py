"""Claims: a paper's statement, the number we measured for it, and the interval it was checked against."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from paperkit.validation import check_number


@dataclass(frozen=True)
class Claim:
    """One headline claim of a paper, checked on our own run.

    A claim passes when ``observed`` is finite and lies in ``[low, high]`` (either end may be open).
    Comparisons such as "method beats baseline by at least m" are written as an interval on a
    difference: ``observed = method - baseline``, ``low = m``.

    Attributes:
        name: short identifier, e.g. ``"greedy-log-regret"``.
        statement: the paper's statement, in words.
        quantity: what we measured, precisely enough to recompute it.
        observed: the measured number.
        low, high: the accepted interval; ``None`` leaves that end open.
        paper: the paper's own number or rate, for the results table (``""`` if it reports none).
        details: further observed numbers that explain the verdict (per-seed values, baselines).
        note: why the margin is what it is (its calibration), or why a failure is expected.
    """

    name: str
    statement: str
    quantity: str
    observed: float
    low: float | None = None
    high: float | None = None
    paper: str = ""
    details: Mapping[str, float] = field(default_factory=dict)
    note: str = ""

    def __post_init__(self) -> None:
        if not self.name or not self.statement or not self.quantity:
            raise ValueError("a claim needs a non-empty name, statement and quantity")
        if self.low is None and self.high is None:
            raise ValueError(f"claim {self.name!r}: give at least one of low/high, else it cannot fail")
        for key in ("low", "high"):
            value = getattr(self, key)
            if value is not None:
                object.__setattr__(self, key, _finite_bound(self.name, key, value))
        if self.low is not None and self.high is not None and self.low > self.high:
            raise ValueError(f"claim {self.name!r}: low={self.low} > high={self.high}")
        object.__setattr__(self, "observed", float(self.observed))

    @classmethod
    def at_most(
        cls, name: str, statement: str, quantity: str, observed: float, bound: float, **kw: Any
    ) -> Claim:
        """Passes when ``observed <= bound``; a NaN or infinite ``bound`` is refused (ValueError)."""
        bound = _finite_bound(name, "bound", bound)
        return cls(name, statement, quantity, observed, None, bound, **kw)

    @classmethod
    def at_least(
        cls, name: str, statement: str, quantity: str, observed: float, bound: float, **kw: Any
    ) -> Claim:
        """Passes when ``observed >= bound``; a NaN or infinite ``bound`` is refused (ValueError)."""
        bound = _finite_bound(name, "bound", bound)
        return cls(name, statement, quantity, observed, bound, None, **kw)

    @classmethod
    def between(
        cls, name: str, statement: str, quantity: str, observed: float, low: float, high: float, **kw: Any
    ) -> Claim:
        """Passes when ``low <= observed <= high``; NaN or infinite bounds are refused (ValueError)."""
        return cls(name, statement, quantity, observed, low, high, **kw)

    @property
    def passed(self) -> bool:
        if not math.isfinite(self.observed):
            return False
        if self.low is not None and self.observed < self.low:
            return False
        return not (self.high is not None and self.observed > self.high)

    @property
    def comparison(self) -> str:
        """The check in words, e.g. ``"<= 0.35"`` or ``"in [0.3, 0.7]"``."""
        if self.low is not None and self.high is not None:
            return f"in [{self.low:g}, {self.high:g}]"
        if self.high is not None:
            return f"<= {self.high:g}"
        return f">= {self.low:g}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "statement": self.statement,
            "quantity": self.quantity,
            "observed": _json_float(self.observed),
            "low": self.low,
            "high": self.high,
            "comparison": self.comparison,
            "passed": self.passed,
            "paper": self.paper,
            "details": {k: _json_float(float(v)) for k, v in self.details.items()},
            "note": self.note,
        }


def _finite_bound(claim: str, key: str, value: Any) -> float:
    # A NaN bound makes every comparison False, so the claim would pass whatever was observed; an infinite
    # one is an open end, which is spelled None. Both are refused with the bound's name.
    return check_number(value, f"claim {claim!r}: {key}")


def _json_float(x: float) -> float | str:
    # JSON has no inf/nan; keep them readable instead of writing invalid JSON.
    return x if math.isfinite(x) else str(x)
