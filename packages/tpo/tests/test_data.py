"""Preference lists, step segmentation and the arithmetic preference trees."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from tpo.arith import (
    ALPHABET,
    ArithProblem,
    ArithSpec,
    answer_of,
    corrupt_at_step,
    fully_wrong,
    gold_solution,
    is_correct,
    make_tree,
    parse_steps,
    score_response,
    sft_mixture,
    split_problems,
)
from tpo.data import PreferenceList, char_step_ids, split_steps, step_spans


def _steps_text(n: int) -> str:
    return "\n".join(f"Step {k}: line {k}" for k in range(1, n + 1)) + "\nAnswer: 0"


@pytest.mark.parametrize("n", [1, 9, 10, 12])
def test_step_split_round_trips_and_counts_two_digit_markers(n):
    text = _steps_text(n)
    steps = split_steps(text)
    assert len(steps) == n
    assert "".join(steps) == text
    for k, s in enumerate(steps, start=1):
        assert s.startswith(f"Step {k}:")  # "Step 10:" is the 10th step, never a second "Step 1"
    ids = char_step_ids(text)
    if n >= 10:
        assert ids[text.index("Step 10:")] == 10
    assert max(ids) == n and min(ids) == 1


def test_text_without_markers_is_one_step_and_a_preamble_is_step_zero():
    assert step_spans("just an answer") == [(0, 14)]
    assert step_spans("") == []
    text = "Let us think.\nStep 1: a\nStep 2: b"
    ids = char_step_ids(text)
    assert set(ids[: text.index("Step 1")]) == {0}
    assert ids[text.index("Step 2")] == 2
    # the marker must start a line: "xStep 3:" inside a line is not a step
    assert len(split_steps("Step 1: aStep 3: b")) == 1


def test_preference_list_validation():
    pl = PreferenceList("Q", ["a", "b", "c"], [0.5, 1, 0.5])
    assert pl.best == 1 and pl.n_pairs == 2 and len(pl) == 3
    assert pl.sorted().scores == (1.0, 0.5, 0.5)
    assert PreferenceList("Q", ["a", "b"], [1, 1]).n_pairs == 0
    with pytest.raises(ValueError, match="at least one response"):
        PreferenceList("Q", [], [])
    with pytest.raises(ValueError, match="one score each"):
        PreferenceList("Q", ["a", "b"], [1.0])
    with pytest.raises(ValueError, match="finite"):
        PreferenceList("Q", ["a", "b"], [1.0, math.nan])
    with pytest.raises(TypeError, match="sequence of str"):
        PreferenceList("Q", "ab", [1.0, 0.0])
    with pytest.raises(TypeError, match="prompt"):
        PreferenceList(3, ["a"], [1.0])  # type: ignore[arg-type]


# ---------------------------------------------------------------- arithmetic


def test_gold_solution_computes_the_expression():
    rng = np.random.default_rng(0)
    spec = ArithSpec()
    for _ in range(200):
        (p,) = split_problems([1], int(rng.integers(1 << 30)), spec)[0]
        # python evaluates the fully parenthesised expression independently
        assert eval(p.expression) == p.answer
        steps = parse_steps(gold_solution(p))
        assert [s[0] for s in steps] == list(range(1, p.n_steps + 1))
        for _, left, op, right, res in steps:
            assert eval(f"({left}){op}({right})") == res
        assert is_correct(p, gold_solution(p)) and score_response(p, gold_solution(p)) == 1.0


def test_problem_text_and_alphabet():
    p = ArithProblem((3, 5, 2, 4), ("+", "*", "-"))
    assert p.expression == "((3+5)*2)-4" and p.prompt == "Q: ((3+5)*2)-4\n"
    assert gold_solution(p) == "Step 1: 3+5=8\nStep 2: 8*2=16\nStep 3: 16-4=12\nAnswer: 12"
    rng = np.random.default_rng(1)
    texts = [p.prompt, gold_solution(p), fully_wrong(p, rng)] + [
        corrupt_at_step(p, k, rng) for k in (1, 2, 3)
    ]
    assert set("".join(texts)) <= set(ALPHABET)
    with pytest.raises(ValueError, match="operators"):
        ArithProblem((1, 2), ("/",))
    with pytest.raises(ValueError, match="K \\+ 1 operands"):
        ArithProblem((1, 2, 3), ("+",))


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_a_slip_at_step_k_keeps_the_prefix_and_propagates(k):
    p = ArithProblem((7, 3, 9, 2, 5), ("-", "+", "*", "-"))
    rng = np.random.default_rng(k)
    for _ in range(20):
        bad = corrupt_at_step(p, k, rng)
        gold_lines, bad_lines = gold_solution(p).split("\n"), bad.split("\n")
        assert bad_lines[: k - 1] == gold_lines[: k - 1]
        assert bad_lines[k - 1] != gold_lines[k - 1]
        steps = parse_steps(bad)
        for i, (_, left, op, right, res) in enumerate(steps, start=1):
            if i != k:  # every other step is right arithmetic on the written operands
                assert eval(f"({left}){op}({right})") == res
            if i > 1:
                assert left == steps[i - 2][4]  # consistent propagation of the written value
        assert answer_of(bad) == steps[-1][4]
        assert score_response(p, bad) == pytest.approx((k - 1) / 4)


def test_score_of_arbitrary_text_by_brute_force():
    p = ArithProblem((2, 4, 3), ("+", "-"))  # Step 1: 2+4=6, Step 2: 6-3=3
    assert score_response(p, "Step 1: 2+4=6\nStep 2: 6-3=3\nAnswer: 3") == 1.0
    assert score_response(p, "Step 1: 2+4=6\nStep 2: 6-3=3\nAnswer: 4") == 0.75
    assert score_response(p, "Step 1: 2+4=6\nStep 2: 6-3=2\nAnswer: 2") == 0.5
    assert score_response(p, "Step 1: 2+4=7\nStep 2: 7-3=4\nAnswer: 4") == 0.0
    assert score_response(p, "") == 0.0
    assert answer_of("Step 1: x\nAnswer: -12") == -12 and answer_of("no answer") is None
    assert not is_correct(p, "Answer: 2")


def test_fully_wrong_trajectories_score_zero():
    rng = np.random.default_rng(0)
    for s in range(30):
        p = split_problems([1], s)[0][0]
        assert score_response(p, fully_wrong(p, rng)) == 0.0


def test_splits_are_disjoint_by_operand_tuple_and_seeded():
    spec = ArithSpec(max_operand=9, max_abs_value=9, min_value=0)
    a = split_problems([300, 100, 100], 3, spec)
    keys = [{p.operands for p in split} for split in a]
    assert [len(k) for k in keys] == [300, 100, 100]
    assert not (keys[0] & keys[1]) and not (keys[0] & keys[2]) and not (keys[1] & keys[2])
    assert split_problems([300, 100, 100], 3, spec) == a
    for p in a[0]:
        assert 2 <= p.n_steps <= 4 and all(0 <= v <= 9 for v in p.values())
        assert all(1 <= x <= 9 for x in p.operands)
    with pytest.raises(ValueError, match="distinct problems"):  # only 2 x 2 operand pairs exist
        split_problems([5], 0, ArithSpec(min_steps=1, max_steps=1, max_operand=2))


def test_tree_is_gold_plus_slipped_branches_plus_a_wrong_one_in_random_order():
    rng = np.random.default_rng(0)
    orders = set()
    for s in range(40):
        p = split_problems([1], s)[0][0]
        tree = make_tree(p, rng, n_branches=3)
        assert len(tree) == 5 and tree.prompt == p.prompt
        assert tree.scores.count(1.0) == 1 and gold_solution(p) in tree.responses
        assert sorted(tree.scores)[0] == 0.0
        assert all(
            s == pytest.approx(score_response(p, r)) for r, s in zip(tree.responses, tree.scores, strict=True)
        )
        branch_scores = sorted(tree.scores)[1:-1]  # without the wrong trajectory's 0 and the gold 1
        assert all(v * p.n_steps == pytest.approx(round(v * p.n_steps)) for v in branch_scores)
        if p.n_steps >= 3:  # enough steps: the three branch points (k - 1) / K are distinct
            assert len(set(branch_scores)) == 3
        orders.add(tree.responses.index(gold_solution(p)))
    assert len(orders) > 1  # the gold path is not always first: order carries no preference


def test_sft_mixture_fraction_and_bad_fraction():
    problems = split_problems([2000], 0)[0]
    prompts, responses = sft_mixture(problems, np.random.default_rng(0), 0.7)
    gold = np.mean([r == gold_solution(p) for p, r in zip(problems, responses, strict=True)])
    assert 0.67 < gold < 0.73 and prompts[0] == problems[0].prompt
    with pytest.raises(ValueError, match="gold_fraction"):
        sft_mixture(problems, np.random.default_rng(0), 1.5)


def test_spec_validation():
    with pytest.raises(ValueError, match="min_steps"):
        ArithSpec(min_steps=3, max_steps=2)
    with pytest.raises(ValueError, match="ops"):
        ArithSpec(ops="/")
    with pytest.raises(ValueError, match=re.escape("[1, 2]")):
        corrupt_at_step(ArithProblem((1, 2, 3), ("+", "+")), 3, np.random.default_rng(0))
