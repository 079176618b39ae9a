"""The generator's cues and balance; the group metrics against hand-made confusion counts."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from sebra.data import make_digit_urbancars, render
from sebra.metrics import group_accuracies, rank_quality


@pytest.fixture(scope="module")
def data():
    return make_digit_urbancars(400, 40, 80, seed=3)


def test_training_cues_agree_at_the_ratio_and_test_is_balanced(data):
    tr, te = data["train"], data["test"]
    assert float((tr.s1 == tr.y).float().mean()) == pytest.approx(0.95, abs=0.04)
    assert float((tr.s2 == tr.y).float().mean()) == pytest.approx(0.95, abs=0.04)
    pattern = 2 * (te.s1 == te.y).long() + (te.s2 == te.y).long()
    assert torch.bincount(pattern).tolist() == [20, 20, 20, 20]
    assert torch.equal(tr.y, tr.digit % 2) and tr.x.shape == (400, 1, 16, 16)
    assert set(te.aligned.tolist()) == {0, 1, 2}


def test_same_seed_same_data_and_disjoint_digit_pools():
    a, b = make_digit_urbancars(50, 8, 8, seed=1), make_digit_urbancars(50, 8, 8, seed=1)
    assert torch.equal(a["train"].x, b["train"].x)
    assert not torch.equal(a["train"].x, make_digit_urbancars(50, 8, 8, seed=2)["train"].x)


def test_render_draws_the_stripes_and_the_corner_square():
    digits = np.zeros((2, 8, 8), np.float32)
    img = render(digits, np.array([0, 1]), np.array([0, 1]), np.full((2, 2), 4), stripe_intensity=0.25,
                 square_intensity=1.0)  # fmt: skip
    h, v = img[0], img[1]
    assert h[6, 8] == pytest.approx(0.0) and h[5, 8] == pytest.approx(0.25)  # rows 4k, 4k+1 on
    assert v[8, 6] == pytest.approx(0.0) and v[8, 5] == pytest.approx(0.25)
    assert np.all(h[:3, :3] == 1.0) and np.all(v[13:, 13:] == 1.0) and h[14, 14] != 1.0


def test_group_accuracies_match_hand_counts():
    # y, s1, s2, pred: 8 samples, patterns chosen by hand
    y = torch.tensor([0, 0, 1, 1, 0, 1, 0, 1])
    s1 = torch.tensor([0, 0, 1, 1, 1, 0, 1, 0])  # aligned: 1 1 1 1 0 0 0 0
    s2 = torch.tensor([0, 1, 1, 0, 0, 1, 1, 0])  # aligned: 1 0 1 0 1 1 0 0
    pred = torch.tensor([0, 0, 1, 0, 1, 1, 1, 1])  # correct: 1 1 1 0 0 1 0 1
    g = group_accuracies(pred, y, s1, s2)
    assert g["id"] == 1.0  # samples 0, 2
    assert g["s2_conflict"] == 0.5  # samples 1 (right), 3 (wrong)
    assert g["s1_conflict"] == 0.5  # samples 4 (wrong), 5 (right)
    assert g["both_conflict"] == 0.5  # samples 6 (wrong), 7 (right)
    assert g["worst_group"] == 0.0  # e.g. class 1, s2 conflicting: sample 3 alone
    assert g["balanced"] == pytest.approx(0.625) and g["mean"] == pytest.approx(5 / 8)
    assert g["both_conflict_gap"] == pytest.approx(-0.5)


def test_rank_quality_on_a_perfect_and_a_constant_ranking():
    aligned = torch.tensor([2, 2, 1, 1, 0, 0])
    q = rank_quality(torch.tensor([1, 1, 2, 2, 3, 3]), aligned)
    assert q["kendall_tau"] == pytest.approx(-1.0) and q["first_bucket_aligned"] == 2.0
    assert q["last_bucket_aligned"] == 0.0 and q["n_buckets"] == 3.0
    assert rank_quality(torch.ones(6, dtype=torch.int64), aligned)["kendall_tau"] == 0.0


def test_bad_inputs_of_the_generator():
    with pytest.raises(ValueError, match="ratio_s1"):
        make_digit_urbancars(20, 4, 4, ratio_s1=1.5)
    with pytest.raises(ValueError, match="n_train"):
        make_digit_urbancars(2, 4, 4)
    with pytest.raises(ValueError, match="stripe_intensity"):
        make_digit_urbancars(20, 4, 4, stripe_intensity=-0.1)
