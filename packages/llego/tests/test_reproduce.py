"""Claims recomputed from synthetic seed records (their signs, shares, NaN handling); the config's checks."""

from __future__ import annotations

import numpy as np
import pytest
from llego.reproduce import Config
from llego.reproduce.claims import claims, per_seed
from llego.reproduce.run import SeedRecord

LM = {"loss_first": 4.0, "loss_last": 2.0}


def _rec(dataset, seed, guided, blind, llego_best, gp_best, llego_test, cart_test, regression=False):
    probes = {
        "xo_fitness": [guided],
        "xo_blind_fitness": [blind],
        "xo_parent_best": [0.9],
        "div_tau": [0.5],
        "div_likely": [0.4],
        "div_tau0.1": [0.5],
        "div_uniform": [0.5],
    }
    llego = {
        "xo_valid_rate": 0.8,
        "mut_valid_rate": 0.7,
        "probes": probes,
        "best_test": llego_test,
        "history": {"best_train": [llego_best]},
        "n_evals": 10,
    }
    gp = {"history": {"best_train": [gp_best]}, "test": 0.0, "n_evals": 10}
    c45 = None if regression else {"train": 0.0, "val": 0.0, "test": 0.0}
    return SeedRecord(dataset, seed, llego, gp, {"test": cart_test}, c45)


def test_claims_follow_synthetic_records():
    cfg = Config.at_scale("quick", datasets=("breast_cancer", "diabetes"))
    recs = [
        _rec("breast_cancer", 0, 0.7, 0.6, 0.95, 0.94, 0.90, 0.91),
        _rec("breast_cancer", 1, 0.6, 0.7, 0.95, 0.96, 0.92, 0.91),
        _rec("breast_cancer", 2, 0.8, 0.6, 0.95, 0.95, 0.91, 0.91),
        *(_rec("diabetes", s, 1.0, 1.2, 0.50, 0.55, 0.59, 0.58, regression=True) for s in range(3)),
    ]
    cl = {c.name: c for c in claims(recs, {"breast_cancer": LM, "diabetes": LM}, cfg)}
    assert cl["breast_cancer-fitness-guidance"].observed == pytest.approx(2 / 3)
    assert cl["breast_cancer-fitness-guidance"].passed
    assert cl["breast_cancer-llego-vs-gp"].observed == pytest.approx(2 / 3)  # a tie counts for LLEGO
    assert cl["breast_cancer-vs-cart"].observed == pytest.approx(0.91 - 0.91 + (0.90 + 0.92 - 0.91 * 2) / 3)
    # regression: lower MSE is better, so guided 1.0 < blind 1.2 and LLEGO 0.50 < GP 0.55 favour LLEGO
    assert cl["diabetes-fitness-guidance"].observed == 1.0 and cl["diabetes-llego-vs-gp"].observed == 1.0
    assert cl["diabetes-vs-cart"].observed == pytest.approx(0.01) and cl["diabetes-vs-cart"].passed
    assert per_seed(recs, "diabetes")["sign"][0] == -1.0


def test_missing_ablation_offspring_and_an_unlearned_lm_fail_their_claims():
    cfg = Config.at_scale("quick")
    recs = [_rec("breast_cancer", s, 0.7, float("nan"), 0.9, 0.9, 0.9, 0.9) for s in range(3)]
    cl = {c.name: c for c in claims(recs, {"breast_cancer": {"loss_first": 4.0, "loss_last": 3.9}}, cfg)}
    assert (
        np.isnan(cl["breast_cancer-fitness-guidance"].observed)
        and not cl["breast_cancer-fitness-guidance"].passed
    )
    assert not cl["breast_cancer-gate"].passed


def test_config_checks():
    with pytest.raises(ValueError, match="datasets"):
        Config(datasets=("mnist",))
    with pytest.raises(ValueError, match="max_depth"):
        Config(max_depth=4)
    assert Config.quick().llego.pop_size == 8 and Config().llego.generations == 8
