"""Claims recomputed from the core at smoke scale; the PD checks on their own."""

from __future__ import annotations

import numpy as np
from ntk_divergence.reproduce import Config, run
from ntk_divergence.reproduce.claims import case_per_seed, per_seed
from ntk_divergence.reproduce.run import pd_checks, train_all, train_case


def test_pd_checks_bias_vs_no_bias():
    pd = pd_checks(Config.smoke(), seed=0)
    assert pd["pd_ratio"].min() > 1e-6 and np.abs(pd["nobias_lambda"]).max() < 1e-10
    assert pd["resnet_pd_ratio"].min() > 1e-6


def test_smoke_report_claims_follow_the_traces():
    cfg = Config.smoke()
    report = run(cfg, seed=0)
    names = {c.name for c in report.claims}
    assert {
        "strict-pd",
        "width-convergence",
        "ce-vs-mse-params",
        "ce-kernel-drift",
        "margin-log-growth",
    } <= names
    traces = train_all(cfg, 0, "cpu")  # recomputed from the core: the same seeds give the same traces
    q = per_seed(traces, cfg)
    growth = next(c for c in report.claims if c.name == "ce-param-growth")
    assert growth.observed == (q["ce_last"] / q["ce_tenth"]).min()
    assert q["ce_last"].shape == (cfg.n_seeds, len(cfg.widths))
    case = cfg.cases[0]
    q2 = case_per_seed(train_case(case, cfg, 0, "cpu"), case)
    growth2 = next(c for c in report.claims if c.name == f"{case.name}-ce-param-growth")
    assert growth2.observed == (q2["ce_last"] / q2["ce_tenth"]).min()
    assert {f"{c.name}-ce-kernel-drift" for c in cfg.cases} <= names
    assert "digits-10-deviation-bound" not in names  # Theorem 2's bound is stated for binary labels
