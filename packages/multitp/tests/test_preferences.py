"""The estimator on exact inputs, the OLS form against statsmodels, bootstrap, scale conversion."""

from __future__ import annotations

import numpy as np
import pytest
from multitp.preferences import (
    Records,
    amce_ols,
    bootstrap,
    choice_to_p,
    estimate,
    from_repo_scale,
    preference_vector,
    records,
)
from multitp.vignettes import generate, generate_all


def _recs(p_fav, fav_left=None, dim=0, pair=None):
    p_fav = np.asarray(p_fav, float)
    fav_left = np.ones(len(p_fav), bool) if fav_left is None else np.asarray(fav_left)
    p_left = np.where(fav_left, p_fav, 1 - p_fav)
    pair = np.arange(len(p_fav)) if pair is None else np.asarray(pair)
    return Records(np.full(len(p_fav), dim), fav_left, p_left, pair)


def test_seven_of_ten_favoured_gives_0_4_either_is_zero_neither_is_excluded():
    r = _recs([1] * 7 + [0] * 3, fav_left=[True, False] * 5)
    assert estimate(r)["species"].value == pytest.approx(0.4)
    r = _recs([1] * 7 + [0] * 3 + [0.5] * 10)  # ten "either": adds 0 to the sum, 20 in the denominator
    assert estimate(r)["species"].value == pytest.approx((7 + 5 - 3 - 5) / 20)
    r = _recs([1] * 7 + [0] * 3 + [np.nan] * 5)
    e = estimate(r)["species"]
    assert e.value == pytest.approx(0.4) and e.n == 10 and e.n_invalid == 5 and e.low_n


def test_all_refused_is_nan_not_zero():
    e = estimate(_recs([np.nan] * 4))["species"]
    assert np.isnan(e.value) and e.n == 0 and e.n_invalid == 4


@pytest.mark.parametrize("name", ["left", "right"])
def test_position_bias_cancels_exactly_with_both_orders(name):
    vig = generate_all(30, seed=1)
    p = np.full(len(vig), 1.0 if name == "left" else 0.0)
    assert np.all(preference_vector(records(vig, p)) == 0.0)


def test_ols_equals_difference_in_proportions_and_statsmodels():
    sm = pytest.importorskip("statsmodels.api")
    rng = np.random.default_rng(0)
    vig = generate("age", 200, seed=2)
    r = records(vig, rng.random(len(vig)))
    b, se = amce_ols(r, "age")
    assert b == pytest.approx(estimate(r)["age"].value, abs=1e-12)
    pf = r.p_favoured[r.dim == 2]
    y = np.r_[pf, 1 - pf]
    X = sm.add_constant(np.r_[np.ones(len(pf)), np.zeros(len(pf))])
    fit = sm.OLS(y, X).fit(cov_type="cluster", cov_kwds={"groups": np.tile(r.pair_id[r.dim == 2], 2)})
    assert b == pytest.approx(fit.params[1], abs=1e-10)
    assert se == pytest.approx(fit.bse[1], abs=1e-10)


def test_bootstrap_centres_on_the_estimate_and_its_sd_matches_the_se():
    rng = np.random.default_rng(1)
    vig = generate_all(300, seed=3)
    r = records(vig, (rng.random(len(vig)) < 0.7).astype(float))
    boot = bootstrap(r, n=2000, seed=0)
    est = estimate(r)
    assert np.allclose(boot.mean(0), preference_vector(r), atol=0.01)
    assert np.allclose(boot.std(0), [e.se for e in est.values()], rtol=0.15)
    assert np.array_equal(boot, bootstrap(r, n=2000, seed=0))


def test_repo_scale_conversion():
    assert from_repo_scale(70.0) == pytest.approx(0.4)


def test_bad_inputs():
    vig = generate("age", 2, seed=0)
    with pytest.raises(ValueError, match="p_left"):
        records(vig, [0.5])
    with pytest.raises(ValueError, match="p_left"):
        records(vig, [0.5, 0.5, 2.0, 0.1])
    with pytest.raises(ValueError, match="choices"):
        choice_to_p(["left", "maybe"])
    with pytest.raises(ValueError, match="dim"):
        amce_ols(records(vig, [0.5] * 4), "religion")
    with pytest.raises(ValueError, match="n"):
        bootstrap(records(vig, [0.5] * 4), n=0)
