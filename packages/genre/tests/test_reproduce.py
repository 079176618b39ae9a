"""The reproduction at tiny scale: configs, the consistency toy's exact target, the claims' presence."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch
from genre.model import soft_targets
from genre.pairs import pair_distribution
from genre.reproduce import Config, consistency, run, toy_problem


def test_configs_build_and_validate():
    for c in (Config.quick(), Config.full(), Config.smoke()):
        assert c.lam_main in c.lams
    with pytest.raises(ValueError, match="datasets must be"):
        Config(datasets=("adult",))
    with pytest.raises(ValueError, match="unknown baselines"):
        Config(baselines=("DiCE",))
    with pytest.raises(ValueError, match="lam_main"):
        Config(lams=(0.5,), lam_main=5.0)


def test_consistency_target_is_the_minimiser_of_the_expected_loss():
    """For one query, the soft-binned pair target minimises E_pairs[loss] over bin distributions: the
    expected loss of any other distribution is larger (Gibbs' inequality)."""
    cfg = Config.smoke()
    X, y = toy_problem(cfg, 0)
    pos = X[y == 1]
    dist = pair_distribution(np.array([[0.3]]), pos, 5.0, k=1000)
    q = soft_targets(torch.as_tensor(pos[dist.idx[0], 0]), 50).numpy()
    target = (dist.prob[0][:, None] * q).sum(0)

    def expected_loss(p):
        return -(dist.prob[0][:, None] * q * np.log(p)).sum()

    rng = np.random.default_rng(0)
    for _ in range(5):
        other = target * np.exp(0.3 * rng.standard_normal(50))
        assert expected_loss(target) < expected_loss(other / other.sum())


def test_smoke_run_has_every_claim():
    rep = run(dataclasses.replace(Config.smoke(), lams=(0.5, 5.0)), seed=0)
    names = {c.name for c in rep.claims}
    assert {
        "validity-h-moons",
        "validity-gold-vs-wachter-moons",
        "plausibility-lof-moons",
        "plausibility-vs-wachter-moons",
        "cost-vs-nnr-moons",
        "lambda-controls-cost-moons",
        "consistency-ks-toy",
    } <= names
    moons = rep.metrics["datasets"]["moons"]["means"]
    assert {"GenRe λ=5", "GenRe λ=0.5", "NNR", "Wachter"} <= set(moons)
    assert moons["Wachter"]["validity"] == 1.0


@pytest.mark.slow
def test_toy_consistency_at_quick_scale():
    out = consistency(Config.quick(), seed=0, device="cpu")
    assert out["ks"].max() < 0.1
    assert out["ks_rival_unconditional"].min() > out["ks"].max()
