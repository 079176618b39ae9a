"""The reproduction's wiring: claims computed from the core, the KD experiment, the configs."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from lpca_metric_embed import dense_mismatch, find_eed, kdtree_mismatch
from lpca_metric_embed.graphs import planted_rgg
from lpca_metric_embed.reproduce import (
    GRAPHS,
    Config,
    make_graph,
    mds_init,
    plots,
    random_check_case,
    report,
    run,
    run_records,
)

pytestmark = pytest.mark.usefixtures("torch_one_thread")


@pytest.fixture(scope="module")
def smoke_report():
    return run(Config.smoke(), seed=2)  # same seed, same numbers: the conformance battery checks it


def test_smoke_claims_are_computed_from_the_core(smoke_report):
    cfg = Config.smoke()
    report = smoke_report
    case = report.metrics["cases"]["cliques/seed=2"]
    ref = find_eed(
        make_graph("cliques", 2),
        model="l2",
        loss="hinge",
        d_max=cfg.d_max,
        lr=cfg.recipe.lr,
        max_epochs=cfg.recipe.max_epochs,
        eval_every=cfg.recipe.eval_every,
        seed=2,
    )
    assert case["l2"]["eed"] == ref.eed
    assert [t["dim"] for t in case["l2"]["trace"]] == [f.dim for f in ref.trace]
    claims = {c.name: c for c in report.claims}
    assert claims["cliques-l2-exact-at-1"].observed == (ref.eed if ref.eed is not None else cfg.d_max + 1)
    assert claims["cliques-l2-exact-at-1"].paper.startswith("appendix")
    assert claims["kdtree-identical-to-dense"].observed == 0.0
    assert report.metrics["kdtree"]["tie_pairs"] > 0
    assert "kdtree-near-nlogn" not in claims and "Exactness check time" not in report.tables


def test_timing_claim_is_a_loglog_slope_of_the_timing_table():
    cfg = dataclasses.replace(
        Config.smoke(), time_scaling=True, scaling_n=(2000, 4000), dense_n=(300,), check_embeddings=2
    )
    report = run(cfg, seed=0)
    rows = [r for r in report.tables["Exactness check time"] if r["check"] == "kdtree"]
    slope = np.polyfit(np.log([r["N"] for r in rows]), np.log([r["seconds"] for r in rows]), 1)[0]
    claim = next(c for c in report.claims if c.name == "kdtree-near-nlogn")
    assert claim.observed == pytest.approx(slope, rel=1e-12) and claim.high == 1.4


def test_random_check_cases_have_ties_and_both_error_kinds():
    rng = np.random.default_rng(0)
    X, Y, beta, g = random_check_case(0, 300, rng)
    d = dense_mismatch(X, Y, beta, g)
    k = kdtree_mismatch(X, Y, beta, g)
    assert d.missed.size and d.spurious.size
    assert np.array_equal(d.missed, k.missed) and np.array_equal(d.spurious, k.spurious)


def test_every_graph_builds():
    for name in GRAPHS:
        g = make_graph(name, 0)
        assert g.n >= 15 and g.n_links > 0 and not g.directed


def test_plots_have_labelled_axes_and_legends(smoke_report):
    figs = plots(smoke_report)
    assert set(figs) == {"eed_l2_vs_lpca", "check_time_vs_n", "search_curves"}
    for fig in figs.values():
        ax = fig.axes[0]
        assert ax.get_xlabel() and ax.get_ylabel() and ax.get_legend() is not None


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"graphs": ("cliques", "cora")}, "unknown graphs"),
        ({"graphs": ("karate",)}, "must include 'cliques'"),
        ({"d_min": 5, "d_max": 4}, "d_min <= d_max"),
        ({"time_scaling": True, "scaling_n": (1000,)}, "scaling_n"),
    ],
)
def test_config_refuses_bad_settings(change, match):
    with pytest.raises(ValueError, match=match):
        dataclasses.replace(Config.smoke(), **change)


def test_scales_grow():
    s, q, f = Config.smoke(), Config.quick(), Config.full()
    assert len(s.graphs) < len(q.graphs) < len(f.graphs)
    assert q.n_seeds == 1 and f.n_seeds == 3 and q.d_max == 16 and f.d_max == 32


def test_planted_claims_are_computed_from_the_records():
    cfg = dataclasses.replace(Config.smoke(), graphs=("cliques", "rgg-d2"), planted_seeds=1, warm_epochs=400)
    rec = run_records(cfg, seed=1)
    claims = {c.name: c for c in report(rec).claims}
    (p,) = rec.planted
    assert p.planted_wrong == 0 and claims["rgg-exact-at-d"].observed == 0.0
    d_star = rec.cases[("rgg-d2", 1)].l2.eed
    expected = (cfg.d_max + 1 if d_star is None else d_star) - 2
    assert claims["rgg-search-upper-bound"].observed == expected
    assert claims["rgg-warm-start-finds-d"].observed == float(p.warm_exact)
    assert p.official is None  # smoke runs skip the official recipe


def test_mds_init_recovers_a_planted_layout_up_to_similarity():
    g, pos = planted_rgg(150, 2, seed=1, degree=8.0)  # connected (seed 0 has 3 components: residual 0.41)
    P = mds_init(g, 2)
    # Procrustes with scale: the residual of the best similarity fit is small relative to the spread
    A, B = P - P.mean(0), pos - pos.mean(0)
    U, sv, Vt = np.linalg.svd(A.T @ B)
    scale = sv.sum() / (A**2).sum()
    resid = np.linalg.norm(scale * A @ U @ Vt - B) / np.linalg.norm(B)
    assert resid < 0.25
    assert np.linalg.matrix_rank(P) == 2


@pytest.mark.slow
def test_quick_scale_claims_are_as_recorded_in_the_readme():
    rep = run(Config.quick(), seed=0)
    failed = sorted(c.name for c in rep.claims if not c.passed)
    assert failed == []
