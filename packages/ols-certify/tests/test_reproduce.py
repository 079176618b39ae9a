"""The reproduction's wiring: claims recomputed from the core, config validation, plots."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from ols_certify import certify, kzc21
from ols_certify.data import diabetes, fixed_effects, gaussian, tiny_instance
from ols_certify.reproduce import Case, CaseRecord, Config, plots, run
from ols_certify.reproduce.claims import SOURCES


@pytest.fixture(scope="module")
def smoke_report():
    return run(Config.smoke(), seed=3)


def test_smoke_claims_are_computed_from_the_core(smoke_report):
    cfg = Config.smoke()
    names = [c.name for c in smoke_report.claims]
    assert names == [
        "soundness-vs-brute-force",
        "non-trivial-certificates",
        "tightness-vs-kzc21",
        "acre-dominates-fh23",
    ]
    X, y, coef, _ = gaussian(cfg.gauss_n, 10, 3)
    cert = certify(X, y, coef, ("se", 2.0), k_max=int(0.1 * cfg.gauss_n))
    kz = kzc21(X, y, coef, int(0.1 * cfg.gauss_n), ("se", 2.0))
    assert smoke_report.claims[2].observed == pytest.approx(kz.k / cert.k_lb)
    gauss = Case("gaussian", d=10, seed=3, se_multiple=2.0)
    assert str(gauss) == "gaussian d=10 seed=3 (τ = 2·SE)"  # the results.json key
    case = smoke_report.metrics["cases"][gauss]
    assert isinstance(case, CaseRecord) and case.k_lb == cert.k_lb and case.k_kzc == kz.k
    assert smoke_report.claims[0].observed == 1.0  # soundness holds even at smoke scale
    assert set(names) <= set(SOURCES)  # every claim has its source
    X, y, coef, _ = diabetes("bmi")
    bmi = smoke_report.metrics["cases"][Case("diabetes", coef="bmi")]
    assert bmi.k_lb == certify(X, y, coef, k_max=44).k_lb
    assert bmi.k_lb_spectral == certify(X, y, coef, k_max=44, spectral=True).k_lb >= bmi.k_lb


def test_plots_have_labelled_axes_and_legends(smoke_report):
    figs = plots(smoke_report)
    assert set(figs) == {"bounds_gaussian_d10", "bounds_diabetes_bmi", "soundness_tiny"}
    for fig in figs.values():
        ax = fig.axes[0]
        assert ax.get_xlabel() and ax.get_ylabel()
        assert ax.get_legend() is not None and len(ax.get_legend().get_texts()) >= 2


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"n_tiny": 0}, "n_tiny"),
        ({"tiny_k_max": 9}, "tiny_k_max"),
        ({"gauss_dims": (50,)}, "must include 10"),
        ({"k_max_factor": 1.5}, "k_max_factor"),
        ({"gauss_n": 15}, "too small"),
    ],
)
def test_config_refuses_bad_settings(change, match):
    with pytest.raises(ValueError, match=match):
        dataclasses.replace(Config.smoke(), **change)


def test_run_refuses_a_gpu_device():
    with pytest.raises(ValueError, match="CPU only"):
        run(Config.smoke(), device="cuda")


def test_scales_grow():
    s, q, f = Config.smoke(), Config.quick(), Config.full()
    assert s.n_tiny < q.n_tiny < f.n_tiny
    assert q.gauss_n == f.gauss_n == 4000 and 50 in f.gauss_dims and f.fixed_effects


def test_data_generators_are_seeded_and_shaped():
    a, b = tiny_instance(5), tiny_instance(5)
    np.testing.assert_array_equal(a[0], b[0])
    assert 12 <= a[0].shape[0] <= 20 and a[0].shape[1] in (2, 3)
    X, _, coef, names = fixed_effects(0)
    assert X[:, 1:].sum(axis=0).min() == 3 and names[coef] == "x"
    with pytest.raises(ValueError, match="not a diabetes column"):
        diabetes("height")


def test_diabetes_equals_scikit_learns_loader():
    from sklearn.datasets import load_diabetes

    ref = load_diabetes()
    X, y, coef, names = diabetes("s1")
    np.testing.assert_allclose(X[:, 1:], ref.data, rtol=1e-10, atol=1e-14)
    np.testing.assert_array_equal(y, ref.target)
    assert names[1:] == ref.feature_names and names[coef] == "s1"


@pytest.mark.slow
def test_quick_scale_claims_hold():
    report = run(Config.quick(), seed=0)
    assert [c.name for c in report.claims if not c.passed] == []
