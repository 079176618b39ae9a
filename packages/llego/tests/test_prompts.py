"""Both text forms: the compact language's round trip and token count, the paper's prompt layout."""

from __future__ import annotations

import numpy as np
import pytest
from llego.data import load, split
from llego.prompts import PLACEHOLDER, CompactLanguage, NaturalLanguage
from llego.tree import Leaf, Split, depth


@pytest.fixture(scope="module")
def sp():
    return split(load("breast_cancer"), 0)


def _full(f: str, t: float, d: int) -> Split | Leaf:
    if d == 0:
        return Leaf(float(d % 2))
    return Split(f, t, _full(f, t - 1, d - 1), _full(f, t + 1, d - 1))


def test_compact_round_trip_token_count_and_snapping(sp):
    lang = CompactLanguage(sp, max_depth=3)
    t = _full("mean_radius", 14.0, 3)
    text = lang.render(t)
    assert len(text.split()) == 7 * 2 + 8  # one token per feature, per bin, per leaf
    c = lang.canonical(t)
    assert lang.render(c) == text and lang.canonical(c) == c and depth(c) == 3
    col = sp.columns["mean_radius"]
    assert c.threshold in lang.bins[col] and abs(c.threshold - 14.0) <= np.diff(lang.bins[col]).max()


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("nosuch t3 L0 L1", "unknown feature"),
        ("mean_radius L0 L1", "threshold bin"),
        ("mean_radius t3 L0", "ends before"),
        ("mean_radius t99 L0 L1", "threshold bin"),
        ("L7", "unknown feature"),
    ],
)
def test_compact_invalid_replies(sp, text, fragment):
    tree, status = CompactLanguage(sp, max_depth=3).parse(text)
    assert tree is None and fragment in status


def test_compact_depth_limit_and_trailing_tokens(sp):
    lang = CompactLanguage(sp, max_depth=1)
    assert "exceeds max_depth" in lang.parse(lang.render(_full("mean_area", 600.0, 2)))[1]
    assert lang.parse("mean_area t3 L0 L1 junk")[1] == "repaired"


def test_prompts_order_parents_and_carry_target(sp):
    nat = NaturalLanguage(sp, max_depth=3)
    parents = [Split("mean_area", float(v), Leaf(0), Leaf(1)) for v in (500, 600, 700)]
    p = nat.crossover_prompt(parents, [0.7, 0.8, 0.9], 0.92)
    lines = p.split("\n")[1:]
    assert [ln.split(",")[0] for ln in lines] == [
        "fitness: 0.7000",
        "fitness: 0.8000",
        "fitness: 0.9000",
        "fitness: 0.9200",
    ]
    assert lines[0].endswith("##") and lines[-1] == "fitness: 0.9200, Expression: "
    assert "mean_radius (float) [" in p and "label distribution" in p
    m = nat.mutation_prompt(parents)
    assert m.startswith("You are an expert") and m.endswith("\nExpression: ## ") and "fitness" not in m
    assert nat.parse(nat.render(parents[0]))[0] == parents[0]
    lang = CompactLanguage(sp)
    assert lang.crossover_prompt(parents, None, None).count(PLACEHOLDER) == 4
    assert lang.crossover_prompt(parents, [0.7, 0.8, 0.9], 0.92).endswith("9 2 0 0 :")
