"""Claims and tables on synthetic records; the smoke run's claims recomputed from its records."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
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
                s, ms, {"conflict_a": 0.4, "conflict_b": 0.5 + jitter, "cosine_a": 0.1, "cosine_b": -0.1}
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
    assert Config.quick().n_seeds == 1 and Config().n_seeds == 5
    with pytest.raises(ValueError, match="background"):
        Config(background=-0.1)


def test_dev_score_tunes_on_held_out_training_images_and_choose_lr_marks_the_best():
    from dataclasses import replace

    from arat.reproduce.run import choose_lr, data_splits, dev_score

    cfg = replace(Config.smoke(), tune_epochs=1, tune_train_limit=32, background=0.5)
    xfit, _, xdev, _ = data_splits(cfg, "cpu", validation=True)
    xte = data_splits(cfg, "cpu")[2]
    assert len(xfit) == 32 and xdev.shape[1:] == (1, 8, 8)
    assert not any(torch.equal(xdev[0], t) for t in xte)  # the dev images are not test images
    row = dev_score(cfg, "arat", 0.05, gamma=30.0)
    assert row["gamma"] == 30.0 and row["dev_score"] == row["dev_clean"] + row["dev_pgd"]
    rows = [{"method": "at", "lr": 0.05, "dev_score": 1.0}, {"method": "at", "lr": 0.1, "dev_score": 1.2}]
    assert choose_lr(rows) == {"at": 0.1} and [r["chosen"] for r in rows] == [False, True]


def test_noisy_background_keeps_strokes_and_is_fixed_by_its_seed():
    from arat import noisy_background

    x = torch.rand(3, 1, 8, 8, generator=torch.Generator().manual_seed(1)) * (torch.rand(3, 1, 8, 8) > 0.5)
    a = noisy_background(x, 0.5, seed=4)
    assert torch.all(a >= x) and torch.all(a <= torch.clamp(x, min=0.5))  # max(x, 0.5 u)
    assert torch.equal(a, noisy_background(x, 0.5, seed=4))
    assert not torch.equal(a, noisy_background(x, 0.5, seed=5))
    assert noisy_background(x, 0.0, seed=4) is x
