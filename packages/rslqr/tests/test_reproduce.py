"""The reproduction: growth statistics, wiring of the claims to the core, and the claims at quick scale."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from rslqr.experiments import doubling_grid, fit_loglog_slope, regret_curve
from rslqr.reproduce import Config, _summarise, plots, run
from rslqr.systems import system_a

GRID = doubling_grid(4096, 64)
N = np.arange(1, 4097, dtype=float)


@pytest.mark.parametrize(
    ("curve", "slope", "ratio"),
    [
        (100 * np.log1p(N), (0.0, 0.2), (0.95, 1.05)),  # O(log N): slope → 0, constant regret per doubling
        (5 * np.sqrt(N), (0.49, 0.51), (1.40, 1.43)),  # O(√N): slope 1/2, ratio √2
        (0.3 * N, (0.99, 1.01), (1.99, 2.01)),
    ],  # linear: slope 1, ratio 2
)
def test_summary_statistics_recognise_growth_rates(curve, slope, ratio):
    s = _summarise(np.stack([curve, 1.1 * curve, 0.9 * curve]), GRID)
    assert slope[0] <= s["slope_median"] <= slope[1]
    assert ratio[0] <= s["doubling_ratio_last3"] <= ratio[1]
    assert s["seeds_with_infinite_regret"] == 0
    assert s["regret_at_N_median"] == pytest.approx(curve[-1])


def test_summary_keeps_divergent_seeds_visible_and_out_of_the_median():
    good = 5 * np.sqrt(N)
    bad = good.copy()
    bad[100:] = math.inf
    s = _summarise(np.stack([good, bad, 1.2 * good]), GRID)
    assert s["seeds_with_infinite_regret"] == 1
    assert list(s["slope_per_seed"][[1]]) == [math.inf]
    assert 0.49 <= s["slope_median"] <= 0.51
    assert math.isnan(s["slope_of_mean_curve"])


def test_smoke_claims_are_computed_from_the_core(deterministic):
    cfg = Config.smoke()
    report = deterministic(run, cfg, seed=3)
    names = [c.name for c in report.claims]
    assert names == ["greedy-log-regret", "noisy-sqrt-regret", "noisy-doubling-ratio"]
    # Recompute the greedy claim independently from the core functions.
    grid = doubling_grid(cfg.n_episodes, cfg.slope_from)
    curves = regret_curve("alg1", system_a(cfg.gamma, cfg.T), cfg.n_episodes, [3, 4], cfg.theta_init_scale)
    slopes = [fit_loglog_slope(grid, c[grid - 1]) if np.isfinite(c[-1]) else math.inf for c in curves]
    assert report.claims[0].observed == pytest.approx(float(np.median(slopes)), rel=1e-12)
    case = report.metrics["cases"]["A/gamma=0.05/alg1"]
    assert case["regret_at_N_median"] == pytest.approx(float(np.median(curves[:, -1])), rel=1e-12)
    assert report.metrics["identifiable"]["A"] is True


def test_plots_have_labelled_axes_and_legends():
    figs = plots(run(Config.smoke(), seed=0))
    assert set(figs) == {"regret_loglog_A_gamma0.05", "regret_semilog"}
    for fig in figs.values():
        ax = fig.axes[0]
        assert ax.get_xlabel().startswith("episodes N") and "regret" in ax.get_ylabel()
        assert ax.get_legend() is not None and len(ax.get_legend().get_texts()) >= 2


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"n_episodes": 100}, "n_episodes must be >= 2"),
        ({"n_seeds": 0}, "n_seeds"),
        ({"algorithms": ("alg1", "alg2", "sgd")}, "unknown algorithms"),
        ({"algorithms": ("alg1",)}, "must include"),
    ],
)
def test_config_refuses_bad_settings(change, match):
    with pytest.raises(ValueError, match=match):
        dataclasses.replace(Config.smoke(), **change)


def test_run_refuses_a_gpu_device():
    with pytest.raises(ValueError, match="CPU only"):
        run(Config.smoke(), seed=0, device="cuda")


def test_scales_grow():
    q, f = Config.quick(), Config.full()
    assert Config.smoke().n_episodes < q.n_episodes < f.n_episodes
    assert f.system_b and not q.system_b


@pytest.mark.slow
def test_quick_scale_claims_hold():
    report = run(Config.quick(), seed=0)
    assert [c.name for c in report.claims if not c.passed] == []
