"""Claims and tables on synthetic records; the smoke run's claims recomputed from its records."""

from __future__ import annotations

import math

import numpy as np
import pytest
from arat.reproduce.claims import claims, per_seed
from arat.reproduce.config import Config
from arat.reproduce.run import MethodRecord, SeedRecord
from arat.reproduce.tables import tables


def _rec(method, seed, clean, worst, cpu=1.0):
    return MethodRecord(method, seed, 0.05, 10.0, clean, worst, worst, worst, worst, math.nan, cpu, 1.0)


def _records(gain):
    out = []
    for s in range(5):
        jitter = 0.002 * s
        ms = {
            "st": _rec("st", s, 0.99, 0.0),
            "at": _rec("at", s, 0.85 + jitter, 0.40),
            "trades": _rec("trades", s, 0.84, 0.42),
            "naive": _rec("naive", s, 0.80, 0.35),
            "splitbn": _rec("splitbn", s, 0.86 + gain + jitter, 0.40),
            "arat": _rec("arat", s, 0.86 + gain + jitter, 0.41 + gain, cpu=1.2),
        }
        out.append(
            SeedRecord(
                s, ms, {"conflict_a": 0.4, "conflict_b": 0.5 + jitter, "cosine_a": 0.1, "cosine_b": -0.1}, {}
            )
        )
    return out


def test_claims_pass_on_a_clear_gain_and_fail_without_it():
    cfg = Config()
    good = {c.name: c.passed for c in claims(_records(0.05), cfg)}
    assert all(good.values()), good
    bad = {c.name: c.passed for c in claims(_records(-0.05), cfg)}
    assert not bad["arat-beats-at-sum"] and not bad["splitbn-beats-at"] and bad["gate-at-costs-accuracy"]


def test_per_seed_sum_and_tables():
    recs = _records(0.0)
    np.testing.assert_allclose(per_seed(recs, "at", "sum"), [0.85 + 0.002 * s + 0.40 for s in range(5)])
    tab = tables(recs, [])
    assert [r["method"] for r in tab["accuracy (mean ± sd over seeds)"]] == list(recs[0].methods)


def test_config_checks():
    with pytest.raises(ValueError, match="methods"):
        Config(methods=("at", "madry"))
    with pytest.raises(ValueError, match="st"):
        Config(methods=("at", "arat"))
    assert Config.quick().n_seeds == 1 and Config().n_seeds == 3
