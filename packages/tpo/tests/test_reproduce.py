"""The reproduction: wiring of the claims to the core, configs, plots; the quick claims under --run-slow."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from tpo.reproduce import METHODS, Config, plots, run


@pytest.fixture(scope="module")
def smoke_report():
    return run(Config.smoke(), seed=3)


def test_smoke_report_has_the_claims_and_tables(smoke_report):
    names = [c.name for c in smoke_report.claims]
    assert names == ["tpo-equals-dpo-on-pairs", "tpo-ranks-better-than-dpo"]
    pair = smoke_report.claims[0]
    assert pair.observed <= 1e-6 and pair.passed  # an identity: holds at any scale
    tau = smoke_report.claims[1]
    runs = smoke_report.metrics["methods"]
    gap = np.mean([r["tau_plain"] for r in runs["tpo"]["runs"]]) - np.mean(
        [r["tau_plain"] for r in runs["dpo"]["runs"]]
    )
    assert tau.observed == pytest.approx(gap, rel=1e-12)
    table = smoke_report.tables["Methods (mean over seeds)"]
    assert [row["method"] for row in table] == ["SFT reference", "dpo", "tpo"]
    for m in ("dpo", "tpo"):
        (r,) = runs[m]["runs"]
        assert -1 <= r["tau_plain"] <= 1 and 0 <= r["accuracy"] <= 1


def test_plots_have_labelled_axes_and_legends(smoke_report):
    figs = plots(smoke_report)
    assert set(figs) == {"methods"}
    for ax in figs["methods"].axes:
        assert ax.get_xlabel() and ax.get_ylabel() and ax.get_legend() is not None


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"methods": ("dpo", "sgd", "tpo")}, "unknown methods"),
        ({"methods": ("dpo",)}, "must include"),
        ({"n_seeds": 0}, "n_seeds"),
        ({"beta": 0.0}, "beta"),
        ({"n_branches": 0}, "n_branches"),
    ],
)
def test_config_refuses_bad_settings(change, match):
    with pytest.raises(ValueError, match=match):
        dataclasses.replace(Config.smoke(), **change)


def test_scales_and_method_registry():
    s, q, f = Config.smoke(), Config.quick(), Config.full()
    assert s.po_steps < q.po_steps < f.po_steps and q.n_seeds == 1 and f.n_seeds == 3
    assert f.accuracy_claims and not q.accuracy_claims
    assert set(f.methods) <= set(METHODS) and {"dpo", "tpo", "tpo_no_asr", "tpo_no_lambda"} <= set(f.methods)
    # the margins are the frozen calibration values (README)
    assert (f.tau_margin, f.acc_sft_margin, f.acc_dpo_margin) == (0.05, 0.03, 0.0)


@pytest.mark.slow
def test_quick_scale_reports_every_claim_with_numbers():
    report = run(Config.quick(), seed=0)
    assert {c.name for c in report.claims} == {"tpo-equals-dpo-on-pairs", "tpo-ranks-better-than-dpo"}
    assert report.claims[0].passed
    assert np.isfinite(report.claims[1].observed)
