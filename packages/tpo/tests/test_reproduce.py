"""The reproduction: claims recomputed from the records, the tuning wiring, configs, plots."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from tpo.reproduce import METHODS, TUNED, Config, plots, report, run, run_records
from tpo.reproduce.claims import table


@pytest.fixture(scope="module")
def smoke_records():
    # curve_every=1: the dev-τ learning curves are recorded and plotted (the full run's setting, 40 there)
    return run_records(dataclasses.replace(Config.smoke(), lrs=(1e-4, 3e-4), curve_every=1), seed=3)


def test_smoke_claims_are_recomputed_from_the_records(smoke_records):
    rec = smoke_records
    rep = report(rec)
    names = [c.name for c in rep.claims]
    assert names == [
        "tpo-equals-dpo-on-pairs",
        "tpo-accuracy-above-dpo",
        "tpo-accuracy-above-dpo-best-vs-worst",
        "tpo-accuracy-above-sft",
        "tau-proxy-tpo-above-dpo",
    ]
    claims = {c.name: c for c in rep.claims}
    assert claims["tpo-equals-dpo-on-pairs"].passed  # an identity: holds at any scale
    gap = table(rec, "tpo", "correct").mean() - table(rec, "dpo_best_vs_worst", "correct").mean()
    c = claims["tpo-accuracy-above-dpo-best-vs-worst"]
    assert c.details["mean_difference"] == pytest.approx(gap, abs=1e-12)
    assert c.observed == c.details["ci_low"] <= gap + 1e-12
    sft_gap = table(rec, "tpo", "correct").mean() - rec.reference.correct.mean()
    assert claims["tpo-accuracy-above-sft"].details["mean_difference"] == pytest.approx(sft_gap, abs=1e-12)
    assert claims["tpo-accuracy-above-dpo"].paper.startswith("Table 1")
    assert claims["tau-proxy-tpo-above-dpo"].paper.startswith("ours")


def test_every_tuned_method_sees_the_same_grid_and_its_choice_is_trained(smoke_records):
    rec = smoke_records
    grids = {m: t.grid for m, t in rec.tuning.items()}
    assert (
        set(grids) == set(TUNED)
        and len({tuple(map(tuple, (c.items() for c in g))) for g in grids.values()}) == 1
    )
    assert all(
        t.fixed == {"steps": rec.config.po_steps, "lists_per_step": rec.config.po_batch}
        for t in rec.tuning.values()
    )
    for m, t in rec.tuning.items():
        (r,) = rec.runs[m]
        assert (r.lr, r.beta) == (t.best["lr"], t.best["beta"])
        assert t.best_score == max(t.scores)
        assert r.correct.shape == (rec.config.n_test,) and set(np.unique(r.correct)) <= {0.0, 1.0}


def test_tables_and_plots(smoke_records):
    rep = report(smoke_records)
    rows = rep.tables["Methods (mean over seeds)"]
    assert [row["method"] for row in rows] == ["SFT reference", *TUNED]
    assert len(rep.tables["Tuning on dev (same grid and budget)"]) == 2 * len(TUNED)
    figs = plots(rep)
    assert set(figs) == {"methods", "tau_curves"}
    for ax in (*figs["methods"].axes, *figs["tau_curves"].axes):
        assert ax.get_xlabel() and ax.get_ylabel() and ax.get_legend() is not None
    steps = rep.metrics["curve_steps"]
    assert steps == [1, 2, 3]  # one dev τ after every step of the smoke scale's 3
    for line in figs["tau_curves"].axes[0].get_lines():
        assert list(line.get_xdata()) == steps


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"methods": ("dpo", "sgd", "tpo")}, "unknown methods"),
        ({"methods": ("dpo", "tpo")}, "must include"),
        ({"n_seeds": 0}, "n_seeds"),
        ({"betas": (0.0,)}, "betas"),
        ({"lrs": ()}, "lrs"),
        ({"n_branches": 0}, "n_branches"),
    ],
)
def test_config_refuses_bad_settings(change, match):
    with pytest.raises(ValueError, match=match):
        dataclasses.replace(Config.smoke(), **change)


def test_scales_and_method_registry():
    s, q, f = Config.smoke(), Config.quick(), Config.full()
    assert s.po_steps < q.po_steps < f.po_steps and q.n_seeds == 1 and f.n_seeds == 3
    assert len(f.lrs) * len(f.betas) == 9 and set(f.methods) <= set(METHODS)
    assert {"tpo_no_asr", "tpo_no_lambda"} <= set(f.methods)
    m = f.margins
    assert (m.acc_gap_min, m.acc_sft_min, m.tau_gap_min) == (0.0, 0.0, 0.05)


@pytest.mark.slow
def test_quick_scale_reports_every_claim_with_numbers():
    rep = run(Config.quick(), seed=0)
    assert rep.claims[0].passed and all(np.isfinite(c.observed) for c in rep.claims)
