"""Claims and tables recomputed from synthetic records (no training): the verdicts follow the numbers."""

from __future__ import annotations

import pytest
import torch
from sebra.data import make_digit_urbancars
from sebra.reproduce.claims import claims, per_seed
from sebra.reproduce.config import Config
from sebra.reproduce.run import MethodRecord, dev_split
from sebra.reproduce.tables import tables

KEYS = ("worst_group", "both_conflict", "s1_conflict", "s2_conflict", "id", "balanced")


def _rec(method, seed, wg, bal, tau=None):
    test = dict.fromkeys(KEYS, 0.9) | {"worst_group": wg, "balanced": bal, "id": 0.99}
    rank = None
    if tau is not None:
        rank = {"kendall_tau": tau, "first_bucket_aligned": 2.0, "last_bucket_aligned": 0.5, "n_buckets": 5.0}
    return MethodRecord(method, seed, test, [0.8], rank, [10, 2, 0] if rank else None)


def records(sebra_gain):
    out = []
    for s in (0, 1, 2):
        out += [_rec("erm", s, 0.30 + 0.01 * s, 0.80), _rec("jtt", s, 0.35, 0.80),
                _rec("groupdro", s, 0.6, 0.88), _rec("erm-rank", s, 0.32, 0.8, tau=-0.2),
                _rec("sebra", s, 0.30 + 0.01 * s + sebra_gain, 0.81, tau=-0.6)]  # fmt: skip
    return out


def test_claims_follow_the_records():
    cfg = Config()
    good = {c.name: c for c in claims(records(0.2), cfg, (0, 1, 2))[0]}
    assert good["debias-worst-group"].observed == pytest.approx(0.2)
    assert good["debias-worst-group"].passed and good["sebra-vs-jtt"].passed
    assert good["ranking-kendall"].observed == pytest.approx(-0.6) and good["ranking-kendall"].passed
    assert good["ranking-vs-erm-rank"].observed == pytest.approx(0.4)
    assert good["gate-erm-learns"].passed and good["gate-erm-unsaturated"].passed
    bad = {c.name: c for c in claims(records(-0.1), cfg, (0, 1, 2))[0]}
    assert not bad["debias-worst-group"].passed and not bad["ranking-matters"].passed


def test_per_seed_orders_by_seed_and_tables_have_every_method():
    recs = records(0.1)[::-1]
    assert per_seed(recs, "worst_group", "erm").tolist() == pytest.approx([0.30, 0.31, 0.32])
    names = ("erm", "jtt", "groupdro", "erm-rank", "sebra")
    t = tables(recs, {"lr": dict.fromkeys(names, 1e-3), "tuning": []})
    rows = next(iter(t.values()))
    assert {r["method"] for r in rows} == {"erm", "jtt", "groupdro", "erm-rank", "sebra"}
    assert len(t["Rankings"]) == 6


def test_config_refuses_a_run_without_the_compared_methods():
    with pytest.raises(ValueError, match="methods"):
        Config(methods=("erm", "sebra"))


def test_dev_split_is_a_seeded_partition_of_the_training_images():
    train = make_digit_urbancars(40, 8, 8, seed=3)["train"]
    fit, dev = dev_split(train, 0.25, seed=7)
    assert (len(fit), len(dev)) == (30, 10)
    both = torch.cat([fit.x, dev.x]).flatten(1)
    assert torch.unique(both, dim=0).shape[0] == torch.unique(train.x.flatten(1), dim=0).shape[0]
    again = dev_split(train, 0.25, seed=7)[1]
    assert torch.equal(again.x, dev.x) and not torch.equal(dev_split(train, 0.25, seed=8)[1].x, dev.x)


def test_config_refuses_an_empty_grid_and_a_bad_dev_fraction():
    with pytest.raises(ValueError, match="grid_lr"):
        Config(grid_lr=())
    with pytest.raises(ValueError, match="dev_fraction"):
        Config(dev_fraction=1.5)
