"""Claims recomputed from the records at smoke scale."""

from __future__ import annotations

import numpy as np
import pytest
from plnl.reproduce import Config, run
from plnl.reproduce.config import Margins


def test_smoke_claims_follow_the_records():
    cfg = Config.smoke()
    report = run(cfg, seed=0)
    m = report.metrics
    by = {c.name: c for c in report.claims}
    assert {"gate-baseline-learns-unsaturated", "plnl-beats-scl-log-ensemble", "plg-precision",
            "nle-precision", "ablation-no-plg"} <= set(by)  # fmt: skip
    plnl = np.array(m["test_acc"]["plnl"])
    ens = np.array(m["test_acc"]["scl_log_ens"])
    d = by["plnl-beats-scl-log-ensemble"].details
    assert d["mean_difference"] == pytest.approx(float((plnl - ens).mean()))
    assert by["gate-baseline-learns-unsaturated"].observed == pytest.approx(np.mean(m["test_acc"]["scl_log"]))
    runs = [r for r in m["runs"] if r["method"] == "plnl" and r["lr"] == m["chosen_lr"]["plnl"]]
    h = [r["history"] for r in runs]
    assert by["nle-precision"].observed == pytest.approx(
        np.mean([1 - x["nle_wrong"][-1] / x["added"][-1] for x in h])
    )
    assert len(runs) == cfg.n_seeds


def test_config_refuses_unknown_methods_and_a_missing_fair_baseline():
    with pytest.raises(ValueError, match="unknown methods"):
        Config(baselines=("scl_log", "scl_log_ens", "svm"))
    with pytest.raises(ValueError, match="scl_log_ens"):
        Config(baselines=("scl_log",))
    assert Config().k == 7 and Config().cons_ramp == 15.0
    assert Margins().ablation_slack == 0.005
