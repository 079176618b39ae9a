"""Input checks at the public boundary: one message style, naming the argument and what was expected.

(Local until paperkit ships shared validation helpers; the messages follow the same pattern.)
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["check_int", "check_number"]


def check_int(value: Any, name: str, *, minimum: int = 1) -> int:
    """``value`` as an int >= ``minimum`` (bools refused)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} must be an int >= {minimum}, got {value!r}")
    return int(value)


def check_number(
    value: Any,
    name: str,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
) -> float:
    """``value`` as a finite float in the interval given (open ends where asked)."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(float(value))
    if ok:
        v = float(value)
        ok = not (low is not None and (v < low or (low_open and v == low)))
        ok = ok and not (high is not None and (v > high or (high_open and v == high)))
    if not ok:
        lo = "-inf" if low is None else f"{low:g}"
        hi = "inf" if high is None else f"{high:g}"
        interval = (
            f"{'(' if low_open or low is None else '['}{lo}, {hi}{')' if high_open or high is None else ']'}"
        )
        raise ValueError(f"{name} must be a finite number in {interval}, got {value!r}")
    return float(value)
