"""Palettes: quantile targets and the Pareto search against the LP oracle."""

from __future__ import annotations

import numpy as np
import pytest
from map_palette.data import beta_copula_rewards
from map_palette.palette import pareto_search, quantile_palette
from map_palette.solvers import feasibility_margin


def test_quantile_palette_targets_and_maintains() -> None:
    R = beta_copula_rewards(3000, seed=0)
    c = quantile_palette(R, ["a", "b", "c"], {"a": 0.7, "c": 0.1})
    assert c[0] == pytest.approx(np.quantile(R[0], 0.7))
    assert c[1] == pytest.approx(R[1].mean())
    assert c[2] == pytest.approx(R[2].mean())  # max(mean, 10 % quantile) = mean
    with pytest.raises(ValueError, match="unknown values"):
        quantile_palette(R, ["a", "b", "c"], {"z": 0.5})
    with pytest.raises(ValueError, match="names must name"):
        quantile_palette(R, ["a"], {})


@pytest.mark.parametrize("method", ["bisection", "grid"])
def test_pareto_search_stops_at_the_hull(method: str) -> None:
    R = beta_copula_rewards(2000, seed=1)
    lo = R.mean(axis=1)
    hi = R.max(axis=1) - 1e-3
    c, rho = pareto_search(R, lo, hi, method=method)
    assert c is not None and 0 <= rho < 1
    assert feasibility_margin(R, c) > 0
    step = 1e-3 / np.linalg.norm(hi - lo) if method == "bisection" else 1 / 9
    assert feasibility_margin(R, lo + min(rho + 1.01 * step, 1.0) * (hi - lo)) < 1e-6
