"""Choosing a palette c (spec step 7; official ``rewardProcessor.assess_original_value`` and
``alignValues.find_pareto_by_interpolation*``).

- :func:`quantile_palette`: c_i = max(mean, q_i-quantile) of r_i under p0 for each targeted value, the p0
  mean for every maintained value.
- :func:`pareto_search`: the last feasible palette on the segment c_low → c_high, by bisection (until
  ‖c_high − c_low‖ ≤ 1e-3) or on a grid of ``grid_points`` stopping at the first infeasible point.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from paperkit import check_array, check_choice, check_int, check_probability, check_strings

from map_palette.dual import check_problem
from map_palette.solvers import is_feasible

__all__ = ["pareto_search", "quantile_palette"]


def quantile_palette(R: object, names: Sequence[str], targets: Mapping[str, float]) -> np.ndarray:
    """(m,) palette: ``targets[name] = q`` raises value ``name`` to max(mean, q-quantile); the others keep
    their mean."""
    R_arr, _, _ = check_problem(R)
    names = check_strings(names, "names")
    if len(names) != R_arr.shape[0]:
        raise ValueError(f"names must name each of the {R_arr.shape[0]} values, got {len(names)}")
    if len(set(names)) != len(names):
        raise ValueError(f"names must be distinct, got {names}")
    if not isinstance(targets, Mapping):
        raise TypeError(f"targets must be a mapping name -> quantile, got {type(targets).__name__}")
    unknown = set(targets) - set(names)
    if unknown:
        raise ValueError(f"targets name unknown values {sorted(unknown)}; values are {names}")
    c = R_arr.mean(axis=1)
    for i, name in enumerate(names):
        if name in targets:
            q = check_probability(targets[name], f"targets[{name!r}]")
            c[i] = max(c[i], float(np.quantile(R_arr[i], q)))
    return c


def pareto_search(
    R: object,
    c_low: object,
    c_high: object,
    *,
    method: str = "bisection",
    grid_points: int = 10,
    normalization: str = "joint",
    prompt_ids: object | None = None,
) -> tuple[np.ndarray | None, float]:
    """(the last feasible palette on c_low → c_high, its position ρ in [0, 1]); (None, nan) if none is."""
    R_arr, lo, _ = check_problem(R, c_low, prompt_ids, normalization=normalization)
    hi = np.asarray(check_array(c_high, "c_high", shape=(R_arr.shape[0],)), float)
    assert lo is not None
    check_choice(method, "method", ("bisection", "grid"))
    grid_points = check_int(grid_points, "grid_points", low=2)

    def ok(rho: float) -> bool:
        return is_feasible(R_arr, lo + rho * (hi - lo), normalization=normalization, prompt_ids=prompt_ids)

    best = None
    if method == "grid":
        for rho in np.linspace(0.0, 1.0, grid_points):
            if not ok(float(rho)):
                break
            best = float(rho)
    else:
        a, b = 0.0, 1.0
        if ok(1.0):
            best = 1.0
        elif ok(0.0):
            best = 0.0
            while (b - a) * np.linalg.norm(hi - lo) > 1e-3:
                mid = 0.5 * (a + b)
                a, b = (mid, b) if ok(mid) else (a, mid)
            best = a
    if best is None:
        return None, float("nan")
    return lo + best * (hi - lo), best
