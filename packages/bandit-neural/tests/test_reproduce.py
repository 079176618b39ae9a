"""The reproduction: wiring of the claims to the core, the configs, the plots."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from bandit_neural.reproduce import (
    BINARY_CASES,
    CLAIM_CASES,
    COSINE_CASES,
    FULL_CASES,
    LINEAR_CASES,
    SQUARE_CASES,
    Case,
    CaseRecord,
    Config,
    Margins,
    play,
    plots,
    run,
)
from bandit_neural.reproduce.claims import SOURCES
from shared_testing import assert_identical

TINY = dataclasses.replace(Config.smoke(), T=12, cases=COSINE_CASES, width=8, train_steps=3)


def test_smoke_claims_are_computed_from_the_core():
    cfg = Config.smoke()
    report = run(cfg, seed=3)
    again = run(cfg, seed=3)  # same seed, same numbers (wall-clock times are in the table only)
    assert_identical(report.metrics, again.metrics)
    assert [c.observed for c in report.claims] == [c.observed for c in again.claims]
    assert [c.name for c in report.claims] == [
        "nonlinear-cosine-ucb",
        "nonlinear-cosine-ts",
        "sublinear-ndb-ucb",
        "linear-baseline-does-not-flatten",
        "nonlinear-square-ucb",
        "linear-utility-no-spurious-win",
        "binary-feedback-neural-glm",
    ]
    # Recompute two claims independently from single runs of the core.
    ndb = play(cfg, Case("cosine", "NDB-UCB"), 3)
    lin = play(cfg, Case("cosine", "LinDB-UCB"), 3)
    assert report.claims[0].observed == pytest.approx(ndb.total / lin.total, rel=1e-12)
    half = cfg.T // 2
    assert report.claims[2].observed == pytest.approx(ndb.regret[half:].sum() / ndb.regret[:half].sum())
    glm, lglm = play(cfg, CLAIM_CASES[-2], 3), play(cfg, CLAIM_CASES[-1], 3)
    assert report.claims[-1].observed == pytest.approx(glm.total / lglm.total, rel=1e-12)
    table = report.tables["Final regret by case"]
    assert len(table) == len(cfg.cases) and table[0]["R_T mean"] == pytest.approx(ndb.total)


@pytest.mark.slow  # ~15 s: two spawned workers import torch
def test_worker_processes_give_the_same_numbers_as_in_process():
    one = run(TINY, seed=1)
    two = run(dataclasses.replace(TINY, workers=2), seed=1)
    for case, record in one.metrics["cases"].items():
        np.testing.assert_array_equal(record.R_T_per_seed, two.metrics["cases"][case].R_T_per_seed)
    assert [c.observed for c in one.claims] == [c.observed for c in two.claims]


def test_scales():
    quick, full = Config.quick(), Config.full()
    assert (
        quick.cases == (*COSINE_CASES, *LINEAR_CASES, *BINARY_CASES) and quick.T == 500 and quick.n_seeds == 1
    )
    assert not set(SQUARE_CASES) & set(quick.cases)
    assert set(CLAIM_CASES) <= set(full.cases) and full.T == 1000 and full.n_seeds == 3
    assert len({c.key for c in FULL_CASES}) == len(FULL_CASES)
    # The spec's defaults.
    assert (full.d, full.K, full.width, full.depth, full.nu, full.lam, full.kappa_mu) == (
        5,
        10,
        64,
        2,
        3.0,
        1.0,
        0.1,
    )
    assert (full.lr, full.train_steps, full.dense_rounds, full.train_every) == (1e-2, 100, 200, 10)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"T": 3}, "T must be an integer >= 4"),
        ({"n_seeds": 0}, "n_seeds must be an integer >= 1"),
        ({"workers": 0}, "workers must be an integer >= 1"),
        ({"cases": COSINE_CASES[:3]}, "missing"),
    ],
)
def test_bad_configs(kwargs, match):
    with pytest.raises(ValueError, match=match):
        dataclasses.replace(Config.smoke(), **kwargs)


def test_bad_cases():
    with pytest.raises(ValueError, match="utility must be one of"):
        Case("sine", "NDB-UCB")
    with pytest.raises(ValueError, match="algorithm must be one of"):
        Case("cosine", "NDB-EXP3")
    with pytest.raises(ValueError, match="neural algorithms only"):
        Case("cosine", "LinDB-UCB", diagonal=True)


def test_plots_have_labelled_axes_and_legends():
    cfg = dataclasses.replace(
        TINY, cases=(*COSINE_CASES, Case("cosine", "NDB-UCB", nu=1.0), *CLAIM_CASES[-2:])
    )
    figs = plots(run(cfg, seed=0))
    assert set(figs) == {"regret_dueling", "regret_binary", "nu_ablation"}
    for fig in figs.values():
        for ax in fig.axes:
            assert ax.get_xlabel() and ax.get_ylabel() and ax.get_title()
            assert ax.get_legend() is not None


def test_records_are_typed_and_the_margins_set_the_bounds():
    report = run(TINY, seed=0)
    cases = report.metrics["cases"]
    assert all(isinstance(c, Case) and isinstance(r, CaseRecord) for c, r in cases.items())
    assert [str(c) for c in cases] == [c.key for c in TINY.cases]  # the results.json keys
    strict = run(dataclasses.replace(TINY, margins=Margins(cosine_ucb_ratio_max=0.1)), seed=0).claims[0]
    assert strict.high == 0.1 and strict.observed == report.claims[0].observed
    assert {c.name for c in report.claims} <= set(SOURCES)
