"""TinyMem data: the rule, the noise, tokenisation, eligibility and bad inputs."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from tinymem import DataConfig, build_data, detokenize, make_sequences, noise_in_window, tokenize
from tinymem.data import PAD, parse_numbers, step_fn


@pytest.mark.parametrize(("kind", "k"), [("increment", 7), ("increment", 2), ("mult", 3), ("mult", 7)])
def test_clean_sequences_follow_the_rule(kind, k):
    seqs = make_sequences(kind, k, 30, 8, start=5)
    f = step_fn(kind, k)
    for r, row in enumerate(seqs):
        assert row[0] == f(5 + r)
        for j in range(7):
            assert row[j + 1] == f(int(row[j]))


def test_token_round_trip_and_padding():
    row = np.array([7, 14, 21, 1000])
    ids = tokenize(row, 24)
    assert detokenize(ids) == "^7 14 21 1000$" + "_" * 10
    assert parse_numbers(ids) == [7, 14, 21, 1000]
    assert ids.dtype == torch.long and ids.shape == (24,) and int(ids.max()) <= 13


def test_build_data_invariants(small_data):
    d, c = small_data, small_data.config
    # noised twins differ from the clean twins only by ±1 per number, and only on noised numbers
    for noised, clean in zip(d.noised, d.clean_twins, strict=True):
        a, b = np.array(parse_numbers(noised)), np.array(parse_numbers(clean))
        assert a.shape == b.shape and set(np.unique(a - b)) <= {-1, 0, 1} and (a != b).any()
    assert bool(d.eligible.all()), "every planted noised sequence has noise inside the window"
    # every row fits max_ctx and ends with EOS + PAD
    for rows in (d.train, d.test[7], d.ft_extra):
        assert rows.shape[1] == c.max_ctx
        assert bool(((rows == 11).sum(1) == 1).all())
    # training set: clean rows + each noised row `duplicates` times; no clean twin in training
    assert len(d.train) == len(d.clean_train) + c.n_noise * c.duplicates
    train_set = {tuple(r.tolist()) for r in d.train}
    assert not any(tuple(r.tolist()) in train_set for r in d.clean_twins)
    counts = [sum(bool((r == n).all()) for r in d.train) for n in d.noised]
    assert counts == [c.duplicates] * c.n_noise
    # test rows are clean and disjoint from training rows
    assert not any(tuple(r.tolist()) in train_set for r in d.test[7])


def test_same_seed_same_data():
    c = DataConfig(n_main=30, n_extra=5, n_test=5, n_noise=4, max_ctx=40, n_ft_extra=2)
    a, b = build_data(c, seed=1), build_data(c, seed=1)
    assert torch.equal(a.train, b.train) and torch.equal(a.noised, b.noised)
    assert not torch.equal(a.train, build_data(c, seed=2).train)


def test_eligibility_filter_brute_force():
    clean = torch.full((3, 10), PAD)
    noised = clean.clone()
    noised[0, 2] = 5  # inside [2, 5)
    noised[1, 7] = 5  # outside
    noised[2, 1] = 5  # in the prompt only
    assert noise_in_window(noised, clean, 2, 3).tolist() == [True, False, False]


def test_bad_inputs():
    with pytest.raises(ValueError, match="longer than the sequences"):
        DataConfig(max_ctx=30, prompt_len=20, window=20)
    with pytest.raises(ValueError, match="longer than max_ctx"):
        tokenize(np.array([1000, 2000, 3000]), 8)
    with pytest.raises(ValueError, match="unknown kind"):
        make_sequences("exp", 2, 3, 4)
    with pytest.raises(ValueError, match="n_noise"):
        DataConfig(n_main=5, n_noise=6)
    with pytest.raises(ValueError, match="longer than max_ctx"):  # sequences longer than n_positions
        build_data(DataConfig(n_main=2000, n_noise=1, n_test=10, length=20, max_ctx=48, n_ft_extra=0))
    with pytest.raises(TypeError, match="DataConfig"):
        build_data({"n_main": 3})  # type: ignore[arg-type]
