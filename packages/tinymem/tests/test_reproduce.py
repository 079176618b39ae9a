"""The reproduction's config, the one selection rule, and a tiny run's claims."""

from __future__ import annotations

import itertools
import math
import warnings

import pytest
from tinymem import METHODS, UNLEARNING, DataConfig, select_best
from tinymem.reproduce import Config, run


def test_seventeen_methods_in_four_families():
    fams = [m.family for m in METHODS.values()]
    assert len(METHODS) == 18 and "balanced_subnet_label" in METHODS  # 17 + the older loss
    assert fams.count("regularizer") == 3 and fams.count("fine-tuning") == 3
    assert len(UNLEARNING) == 12 and {"subnet", "balanced_subnet", "second_order"} <= set(UNLEARNING)
    assert all(len(m.grid) == 3 for m in METHODS.values())


def test_select_best_against_brute_force():
    rows = [
        {"mem": 10.0, "acc_drop": 6.0},  # outside the budget
        {"mem": 20.0, "acc_drop": 1.0},
        {"mem": 15.0, "acc_drop": 4.0},
        {"mem": 15.0, "acc_drop": 2.0},  # same mem, smaller drop wins
        {"mem": math.nan, "acc_drop": 0.0},
    ]
    assert select_best(rows) is rows[3]
    assert select_best(rows, max_acc_drop=6.0) is rows[0]
    assert select_best(rows[:1]) is None


def test_config_validation_and_scales():
    assert Config.quick().methods == ("subnet", "balanced_subnet", "balanced_subnet_label")
    full = Config.full()
    assert set(full.methods) == set(METHODS)
    assert full.data == DataConfig()  # the spec's data sizes, not the quick data
    assert full.grid("balanced_subnet") == full.grid("balanced_subnet_label") == full.grid("subnet")
    ratios = full.grid("subnet")
    assert max(ratios) > 0.05 and all(b / a <= 2.0 + 1e-12 for a, b in itertools.pairwise(ratios))
    with pytest.raises(ValueError, match="unknown methods"):
        Config(methods=("subnet", "balanced_subnet", "magic"))
    with pytest.raises(ValueError, match="must include"):
        Config(methods=("subnet",))


def test_smoke_run_reports_the_claims():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = run(Config.smoke(), seed=0)
    names = [c.name for c in rep.claims]
    assert names == [
        "precondition-memorises",
        "balanced-subnet-removes-memorisation",
        "balanced-subnet-keeps-accuracy-better-than-subnet",
    ]
    assert {r["method"] for r in rep.metrics["rows"]} == {"subnet", "balanced_subnet"}
    assert all(math.isfinite(r["acc"]) for r in rep.metrics["rows"])
    rows = {r["method"]: r for r in rep.metrics["rows"]}
    base = rep.metrics["base"]
    pre, _, gap = rep.claims
    assert pre.observed == pytest.approx(min(base["mem"] - 50.0, base["acc"] - 90.0))
    assert gap.observed == pytest.approx(rows["subnet"]["acc_drop"] - rows["balanced_subnet"]["acc_drop"])
    for r in rows.values():
        assert r["acc_drop"] == pytest.approx(base["acc"] - r["acc"])
