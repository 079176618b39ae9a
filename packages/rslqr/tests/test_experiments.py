"""Regret curves, slopes and the identifiability helper."""

from __future__ import annotations

import numpy as np
import pytest
from rslqr.experiments import (
    doubling_grid,
    doubling_increments,
    fit_loglog_slope,
    identifiability_margin,
    identifiable,
    initial_estimate,
    loglog_slope,
    regret_curve,
    run_seeds,
)
from rslqr.systems import system_a, system_b


@pytest.mark.parametrize("gamma", [0.05, 0.2])
def test_identifiable_on_a_not_on_b(gamma: float) -> None:
    assert identifiable(system_a(gamma=gamma))
    assert not identifiable(system_b(gamma=gamma))
    assert identifiability_margin(system_a(gamma=gamma)) > 0.01
    assert identifiability_margin(system_b(gamma=gamma)) < 1e-10


def test_slope_fit_recovers_power_laws() -> None:
    grid = doubling_grid(8192)
    np.testing.assert_array_equal(grid, [64, 128, 256, 512, 1024, 2048, 4096, 8192])
    np.testing.assert_array_equal(doubling_grid(1000), [64, 128, 256, 512, 1000])
    for b in (0.14, 0.5, 1.0):
        assert fit_loglog_slope(grid, 3.0 * grid**b) == pytest.approx(b, abs=1e-12)
    # log N growth has a small log-log slope: d log(log N)/d log N = 1/log N ≈ 0.15 around N ~ 1000.
    assert 0.1 < fit_loglog_slope(grid, np.log(grid)) < 0.25
    N = np.arange(1, 4097)
    curve = np.vstack([2 * np.sqrt(N), 4 * np.sqrt(N)])  # (S, N): slopes on the seed mean
    assert loglog_slope(curve) == pytest.approx(0.5, abs=1e-12)
    ends, inc = doubling_increments(curve)
    np.testing.assert_array_equal(ends, [128, 256, 512, 1024, 2048, 4096])
    np.testing.assert_allclose(inc[1:] / inc[:-1], np.sqrt(2), rtol=1e-12)
    assert np.isnan(fit_loglog_slope([64, 128], [1.0, np.inf]))
    with pytest.raises(ValueError, match="positive"):
        fit_loglog_slope([64, 128], [0.0, 1.0])
    with pytest.raises(ValueError, match="same length >= 2"):
        fit_loglog_slope([64, 128, 256], [1.0, 2.0])
    with pytest.raises(ValueError, match="n_min <= n_max"):
        doubling_grid(32)


def test_regret_curve_shape_determinism_and_initial_estimate() -> None:
    system = system_a(gamma=0.05)
    a = regret_curve("alg1", system, 40, [0, 1])
    b = regret_curve("alg1", system, 40, [0, 1])
    assert a.shape == (2, 40)
    np.testing.assert_array_equal(a, b)
    assert np.all(np.diff(a, axis=1) >= -1e-10)  # cumulative regret is non-decreasing
    zero = regret_curve("oracle", system, 16, [0, 1, 2])
    assert np.all(np.abs(zero) <= 1e-9)
    # θ̂^(1) is the first draw of the seed's generator.
    th = initial_estimate(system, 0.1, np.random.default_rng(3))
    ref = system.theta + 0.1 * np.random.default_rng(3).standard_normal((2, 3))
    np.testing.assert_array_equal(th, ref)
    # Same seed => same θ̂^(1), initial states and noise for every learner (paired comparison).
    logs = [run_seeds(name, system, 8, [5])[0] for name in ("alg1", "ce_lqr", "alg2")]
    np.testing.assert_array_equal(logs[0].x0, logs[1].x0)
    np.testing.assert_array_equal(logs[0].x0, logs[2].x0)
    assert logs[0].theta_error[0] == logs[2].theta_error[0]
    with pytest.raises(ValueError, match="seeds must be a non-empty sequence of integers"):
        regret_curve("alg1", system, 10, [])
    with pytest.raises(ValueError, match="theta_init_scale"):
        regret_curve("alg1", system, 10, [0], theta_init_scale=-1.0)


def test_overrides_reach_the_learner() -> None:
    system = system_a(gamma=0.05)
    logs = run_seeds("alg2", system, 5, [0], sigma0=0.5, noise_decay=0.0)
    np.testing.assert_array_equal(logs[0].sigma, 0.5)


def test_regret_growth_orders_at_moderate_scale() -> None:
    # γ = 0.05, N = 1024, 3 seeds: Algorithm 1's increments per doubling stay bounded (log N), the
    # fixed-initial baseline's double (linear). Reported numbers, not the paper's claims.
    system = system_a(gamma=0.05)
    alg1 = regret_curve("alg1", system, 1024, [0, 1, 2])
    fixed = regret_curve("fixed_initial", system, 1024, [0, 1, 2])
    assert np.isfinite(alg1).all() and np.isfinite(fixed).all()
    assert loglog_slope(fixed) > 0.9
    assert loglog_slope(alg1) < 0.5


def test_seeds_past_int64_are_refused_in_one_line() -> None:
    # Issue 23: --seed 2**70 overflowed on the numpy path; now it is refused naming the seed.
    system = system_a(gamma=0.05)
    with pytest.raises(ValueError, match=r"^seeds\[1\] must be an integer in \[0, 2\*\*63 - 1\], got 11805"):
        run_seeds("alg1", system, 4, [0, 2**70])
    with pytest.raises(TypeError, match=r"^seeds\[0\] must be an integer"):
        run_seeds("alg1", system, 4, [1.5])
    assert len(run_seeds("alg1", system, 4, np.array([3, 4]))) == 2
