import math
from statistics import NormalDist

import numpy as np
import pytest
from paperkit import Claim
from paperkit.stats import (
    Interval,
    bootstrap_ci,
    ci_claim,
    grid_cells,
    kendall_tau,
    over_seeds,
    paired_difference,
    spearman,
    tune,
)


def test_paired_difference_has_the_variance_of_the_difference_not_of_each_method():
    # a_i = u_i + e_i, b_i = u_i + f_i + delta: the shared u (sd 10) cancels in a - b, whose sd is
    # sqrt(2) * 0.5; the CI half-width should be z * sd / sqrt(n) (closed form for the mean).
    rng = np.random.default_rng(0)
    n, delta, sd = 400, 0.3, 0.5
    u = rng.normal(0, 10, n)
    a = u + rng.normal(0, sd, n)
    b = u + rng.normal(0, sd, n) + delta
    pd = paired_difference(a, b, rng=np.random.default_rng(1), names=("A", "B"))
    se = math.sqrt(2) * sd / math.sqrt(n)
    z = NormalDist().inv_cdf(0.975)
    assert pd.interval.estimate == pytest.approx(float(np.mean(a - b)), abs=1e-12)
    assert pd.interval.estimate == pytest.approx(-delta, abs=4 * se)
    half = (pd.interval.high - pd.interval.low) / 2
    assert half == pytest.approx(z * se, rel=0.15)
    # Unpaired, the interval would be ~20x wider: pairing is what the CI uses.
    assert half < 0.2 * z * 10 * math.sqrt(2 / n)
    assert pd.a == "A" and pd.b == "B"
    assert set(pd.details()) == {"mean_difference", "ci_low", "ci_high", "n"}  # units, not seeds


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_bootstrap_coverage_on_a_normal_sample_within_monte_carlo_error(method):
    # 300 samples of n = 25 from N(1, 2^2); the 90% interval should cover the mean about 90% of the time.
    # Percentile/BCa of the mean undercover slightly at n = 25 (about 0.88); the MC sd is 0.017.
    rng = np.random.default_rng(2)
    reps, covered = 300, 0
    for _ in range(reps):
        x = rng.normal(1.0, 2.0, 25)
        ci = bootstrap_ci(x, rng=rng, level=0.9, n_boot=400, method=method)
        covered += ci.low <= 1.0 <= ci.high
    cover = covered / reps
    mc_sd = math.sqrt(0.9 * 0.1 / reps)
    assert 0.9 - 0.02 - 3 * mc_sd <= cover <= 0.9 + 3 * mc_sd


def test_bootstrap_width_matches_normal_theory_and_2d_resamples_both_axes():
    rng = np.random.default_rng(3)
    x = rng.normal(0, 1, 2000)
    ci = bootstrap_ci(x, rng=np.random.default_rng(4), level=0.95, n_boot=2000)
    assert (ci.high - ci.low) / 2 == pytest.approx(1.96 * x.std() / math.sqrt(2000), rel=0.1)
    # 2-d: item effects shared by seeds; the two-way bootstrap is wider than treating cells as iid
    # units when items vary a lot (the item variance is counted once per item, not per cell).
    items = rng.normal(0, 1, 200)
    table = items[None, :] + rng.normal(0, 0.1, (5, 200))
    two_way = bootstrap_ci(table, rng=np.random.default_rng(5), n_boot=1000)
    iid = bootstrap_ci(table.ravel(), rng=np.random.default_rng(5), n_boot=1000)
    assert two_way.estimate == pytest.approx(table.mean())
    assert (two_way.high - two_way.low) > 1.8 * (iid.high - iid.low)
    assert two_way.n == 1000


def test_bootstrap_is_deterministic_given_the_generator_and_single_unit_is_exact():
    x = [0.1, 0.4, -0.2, 0.3]
    a = bootstrap_ci(x, rng=np.random.default_rng(7))
    b = bootstrap_ci(x, rng=np.random.default_rng(7))
    assert a == b
    one = bootstrap_ci([0.5], rng=np.random.default_rng(0))
    assert (one.low, one.high, one.method) == (0.5, 0.5, "exact")


@pytest.mark.parametrize(
    ("kwargs", "exc", "fragment"),
    [
        ({"values": []}, ValueError, "values must be a non-empty"),
        ({"values": [1.0, math.nan]}, ValueError, "finite"),
        ({"values": [1.0, 2.0], "level": 1.5}, ValueError, "level must be in (0, 1)"),
        ({"values": [1.0, 2.0], "n_boot": 5}, ValueError, "n_boot must be"),
        ({"values": [1.0, 2.0], "method": "t"}, ValueError, "method must be one of"),
        ({"values": [[1.0, 2.0]], "method": "bca"}, ValueError, "bca"),
        ({"values": [1.0, 2.0], "rng": 3}, TypeError, "rng must be a numpy.random.Generator"),
    ],
)
def test_bootstrap_refuses_bad_input(kwargs, exc, fragment):
    kwargs = {"rng": np.random.default_rng(0), **kwargs}
    values = kwargs.pop("values")
    with pytest.raises(exc, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        bootstrap_ci(values, **kwargs)


def test_paired_difference_refuses_unpaired_shapes():
    with pytest.raises(ValueError, match="same shape"):
        paired_difference([1.0, 2.0], [1.0, 2.0, 3.0], rng=np.random.default_rng(0))


def test_over_seeds_pairs_methods_by_seed_and_verdicts_per_seed():
    def fn(seed):
        noise = np.random.default_rng(seed).normal()  # the same noise for both methods under one seed
        return {"tpo": 1.0 + noise + 0.1 * seed, "dpo": noise}

    table = over_seeds(fn, [0, 1, 2])
    pd = table.difference("tpo", "dpo", rng=np.random.default_rng(0))
    np.testing.assert_allclose(pd.per_seed, [1.0, 1.1, 1.2])
    assert pd.verdicts(low=1.05).tolist() == [False, True, True]
    assert pd.details()["seed2"] == pytest.approx(1.2)
    assert table.mean("dpo") == pytest.approx(np.mean(table["dpo"]))
    with pytest.raises(ValueError, match="distinct"):
        over_seeds(fn, [0, 0])
    with pytest.raises(KeyError, match="no quantity"):
        table["sft"]


def test_ci_claim_checks_the_bound_of_the_interval_not_the_estimate():
    ci = Interval(estimate=0.2, low=-0.01, high=0.4, level=0.95, method="percentile", n=5)
    claim = ci_claim("gap", "A beats B", "A - B accuracy", ci, above=0.0, paper="Table 1")
    assert isinstance(claim, Claim)
    assert not claim.passed and claim.observed == -0.01
    assert "lower end of the 95% percentile bootstrap CI" in claim.quantity
    assert claim.details["estimate"] == 0.2
    upper = ci_claim("gap", "A no worse", "A - B", ci, below=0.5)
    assert upper.passed and upper.observed == 0.4
    with pytest.raises(ValueError, match="exactly one"):
        ci_claim("gap", "s", "q", ci)
    with pytest.raises(ValueError, match="finite"):
        ci_claim("gap", "s", "q", ci, above=math.nan)


@pytest.mark.parametrize("seed", [0, 1])
def test_rank_correlations_match_scipy_with_ties(seed):
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 6, 60).astype(float)  # many ties
    y = x + rng.integers(0, 4, 60)
    assert spearman(x, y) == pytest.approx(stats.spearmanr(x, y).statistic, abs=1e-12)
    assert kendall_tau(x, y) == pytest.approx(stats.kendalltau(x, y).statistic, abs=1e-12)
    z = rng.normal(size=40)
    assert spearman(z, -z) == pytest.approx(-1.0)
    assert kendall_tau(z, z**3) == pytest.approx(1.0)
    assert math.isnan(spearman([1.0, 1.0, 1.0], [1.0, 2.0, 3.0]))


def test_tune_gives_every_method_the_same_grid_and_budget():
    calls = []

    def evaluate(method, setting):
        calls.append((method, dict(setting)))
        lr, beta = setting["lr"], setting["beta"]
        best = {"dpo": (0.1, 1.0), "tpo": (0.01, 0.5)}[method]
        return -abs(lr - best[0]) - abs(beta - best[1]) if not (method == "tpo" and lr == 1.0) else math.nan

    grid = {"lr": [0.01, 0.1, 1.0], "beta": [0.5, 1.0]}
    res = tune(evaluate, ["dpo", "tpo"], grid, fixed={"steps": 120})
    assert res["dpo"].best == {"lr": 0.1, "beta": 1.0}
    assert res["tpo"].best == {"lr": 0.01, "beta": 0.5}
    assert res["dpo"].grid == res["tpo"].grid == grid_cells(grid)
    assert all(s["steps"] == 120 for _, s in calls) and len(calls) == 12
    rows = res["tpo"].rows()
    assert sum(r["chosen"] for r in rows) == 1 and len(rows) == 6
    low = tune(evaluate, ["dpo"], grid, maximize=False)
    assert low["dpo"].best_score == min(low["dpo"].scores)
    with pytest.raises(ValueError, match="both set"):
        tune(evaluate, ["dpo"], grid, fixed={"lr": 1})
    with pytest.raises(ValueError, match="distinct"):
        tune(evaluate, ["dpo", "dpo"], grid)
