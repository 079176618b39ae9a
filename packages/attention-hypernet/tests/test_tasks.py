"""The two task generators against rule checkers written from the definitions, and their splits."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest
from attention_hypernet.logic import FuzzyLogic, fuzzy_or_of_ands
from attention_hypernet.sraven import RULES, SRaven, ambiguity_count, rule_answers, rule_grids


def obeys(rule: int, row: np.ndarray, V: int) -> bool:
    """Does one row (g values) obey ``rule``? Written from the rule list, one row at a time."""
    name = RULES[rule]
    if name == "constant":
        return len(set(row)) == 1
    if name.startswith("progression"):
        inc = int(name[len("progression") :])
        return all((row[i + 1] - row[i]) % V == inc % V for i in range(len(row) - 1))
    if name == "addition":
        return sum(row[:-1]) % V == row[-1]
    if name == "subtraction":
        return (row[0] - sum(row[1:-1])) % V == row[-1]
    return len(set(row)) == len(row)  # distribute_three: distinct values (same set across rows: below)


def test_every_row_obeys_its_rule():
    rng = np.random.default_rng(0)
    rules = np.repeat(np.arange(8), 50)
    grids = rule_grids(rules, num_values=8, grid=3, rng=rng)
    assert grids.shape == (400, 3, 3) and grids.min() >= 0 and grids.max() <= 7
    for r, g in zip(rules, grids, strict=True):
        assert all(obeys(int(r), row, 8) for row in g), (RULES[r], g)
        if RULES[r] == "distribute_three":
            assert len({tuple(sorted(row)) for row in g}) == 1


def test_sraven_splits_and_layout():
    task = SRaven()
    assert len(task.all_combinations()) == comb(8 + 4 - 1, 4) == 330
    ood = {tuple(c) for c in task.combinations("ood")}
    assert len(ood) == 82 and not ood & {tuple(c) for c in task.combinations("train")}
    batch = task.sample(300, "train", np.random.default_rng(1))
    assert batch.x.shape == (300, 36, 8) and task.seq_len == 36
    assert np.all(batch.x[:, -4:] == 0) and np.all(batch.x[:, :-4].sum(-1) == 1)
    assert not {tuple(r) for r in batch.rules} & ood
    assert {tuple(r) for r in task.sample(300, "ood", np.random.default_rng(2)).rules} <= ood
    # the one-hot tokens read back the panels; the answer is the last panel
    seq = batch.panels.reshape(300, 9, 4)
    np.testing.assert_array_equal(batch.x[:, :-4].argmax(-1), seq[:, :-1].reshape(300, -1))
    np.testing.assert_array_equal(batch.y, seq[:, -1])


def test_feature_permutation_is_per_column_and_shared_by_rows():
    task = SRaven()
    rng = np.random.default_rng(3)
    plain = SRaven().sample(50, "train", np.random.default_rng(3), permute=False)
    perm = task.sample(50, "train", rng)
    assert np.all(np.sort(perm.perms, -1) == np.arange(4))
    assert np.any(perm.perms != np.arange(4))
    # undoing each column's permutation gives grids in which feature f obeys rules[f] in every row
    inv = np.argsort(perm.perms, -1)
    undone = np.take_along_axis(perm.panels, inv[:, None], axis=-1)
    for b in range(50):
        for f in range(4):
            assert all(obeys(int(perm.rules[b, f]), row, 8) for row in undone[b, :, :, f])
    assert np.all(plain.perms == np.arange(4))


def test_rule_answers_predict_the_generated_answer():
    rng = np.random.default_rng(4)
    families = {0: 0, 1: 1, 2: 1, 3: 1, 4: 1, 5: 2, 6: 3, 7: 4}
    rules = np.repeat(np.arange(8), 40)
    seq = rule_grids(rules, num_values=8, grid=3, rng=rng).reshape(-1, 9)
    fits, answers = rule_answers(seq[:, :-1], num_values=8, grid=3)
    fam = np.array([families[int(r)] for r in rules])
    assert fits[np.arange(len(rules)), fam].all()
    np.testing.assert_array_equal(answers[np.arange(len(rules)), fam], seq[:, -1])


def test_ambiguity_checker_flags_a_constructed_ambiguous_problem():
    # feature 0 = [a, a, a | b, b, b | c, c, ?] is constant, but with F = 1 nothing else fits: unambiguous
    const = np.array([[[1], [1], [1]], [[4], [4], [4]], [[6], [6], [6]]])[None]
    assert ambiguity_count(const, num_values=8)[0] == 0
    # rows 0 1 1 / 2 3 5 / 1 2 3: addition (0+1=1, 2+3=5) says 3, progression +1 on the last row does not fit
    # the first rows; a grid where both addition and subtraction fit with different answers is ambiguous:
    # rows (0, 0, 0), (2, 0, 2), last row (3, 1, ?): addition -> 4, subtraction -> 2
    amb = np.array([[[0], [0], [0]], [[2], [0], [2]], [[3], [1], [4]]])[None]
    assert ambiguity_count(amb, num_values=8)[0] == 1
    rate = (
        ambiguity_count(
            SRaven(num_features=2).sample(400, "train", np.random.default_rng(5)).panels, num_values=8
        )
        > 0
    ).mean()
    assert 0 < rate < 0.2


def test_fuzzy_logic_oracle_and_splits():
    task = FuzzyLogic(num_vars=4, num_terms=2, seed=3)
    assert [len(task.terms(s)) for s in ("train", "test", "ood")] == [33, 33, 6]
    held_out = set(range(12, 16))
    assert set(task.terms("ood").ravel()) <= held_out
    assert not set(task.terms("train").ravel()) & held_out and not set(task.terms("test").ravel()) & held_out
    assert not {tuple(t) for t in task.terms("train")} & {tuple(t) for t in task.terms("test")}
    batch = task.sample(500, "ood", np.random.default_rng(0))
    assert batch.x.shape == (500, 16, 5) and np.all(batch.x[:, -1, -1] == 0)
    assert np.all((batch.y >= 0) & (batch.y <= 1))
    # the oracle (the task's own function) has R^2 = 1; the sequence mean has R^2 ~ 0
    oracle = fuzzy_or_of_ands(batch.latents, batch.x[:, :, :4].astype(float))[:, -1]
    assert np.mean(1 - (oracle - batch.y) ** 2 / batch.base_mse) == pytest.approx(1.0, abs=1e-6)
    y_seq = fuzzy_or_of_ands(batch.latents, batch.x[:, :, :4].astype(float))
    np.testing.assert_allclose(batch.x[:, :-1, -1], y_seq[:, :-1], atol=1e-6)


def test_fuzzy_semantics_by_hand():
    lat = np.array([[[1, 0], [0, 0]]], dtype=bool)  # (x0 AND NOT x1) OR (NOT x0 AND NOT x1)
    x = np.array([[[0.9, 0.2], [0.3, 0.6]]])
    want = [max(min(0.9, 0.8), min(0.1, 0.8)), max(min(0.3, 0.4), min(0.7, 0.4))]
    np.testing.assert_allclose(fuzzy_or_of_ands(lat, x)[0], want)


def test_bad_task_arguments():
    with pytest.raises(ValueError, match="num_values"):
        SRaven(num_values=2)
    with pytest.raises(ValueError, match="frac_ood"):
        SRaven(num_features=1, frac_ood=0.1)
    with pytest.raises(ValueError, match="frac_test"):
        FuzzyLogic(num_vars=2, frac_test=1.0)
    with pytest.raises(ValueError, match="frac_ood"):
        FuzzyLogic(num_vars=2, num_terms=2, frac_ood=0.25)
    with pytest.raises(ValueError, match="split"):
        FuzzyLogic().sample(4, "valid", np.random.default_rng(0))
    with pytest.raises(TypeError, match="rng"):
        SRaven().sample(4, "train", 0)
