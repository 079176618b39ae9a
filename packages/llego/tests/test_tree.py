"""Trees against sklearn (exact predictions, ties), the text form's round trip and validation."""

from __future__ import annotations

import numpy as np
import pytest
from llego.tree import Leaf, Split, TreeError, depth, from_sklearn, parse, parse_reply, predict, to_text
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

NAMES = ("a", "b", "c")
COLS = {n: i for i, n in enumerate(NAMES)}


def _data(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(300, 3)).astype(np.float32).astype(float)  # sklearn compares in float32
    y = (X[:, 0] + 0.5 * X[:, 1] ** 2 > 0.3).astype(float)
    return X, y


@pytest.mark.parametrize("cls", [DecisionTreeClassifier, DecisionTreeRegressor])
def test_from_sklearn_predicts_exactly_as_sklearn_including_ties(cls):
    X, y = _data()
    est = cls(max_depth=4, random_state=0).fit(X, y)
    t = from_sklearn(est, NAMES)
    Z = _data(1)[0]
    thr = est.tree_.threshold[est.tree_.feature >= 0]
    ties = np.tile(Z[:20], (1, 1))
    ties[:, est.tree_.feature[0]] = est.tree_.threshold[0]  # exactly on the root threshold: goes left
    for Q in (Z, ties):
        assert np.array_equal(predict(t, Q, COLS), est.predict(Q))
    assert depth(t) == est.get_depth() and len(thr) > 3


def test_text_round_trip_and_depth():
    t = Split("a", 0.5, Split("b", -1.25, Leaf(0), Leaf(1)), Leaf(1))
    assert parse(to_text(t)) == t and depth(t) == 2 and depth(Leaf(1)) == 0
    assert parse("## " + to_text(t) + " ##") == t
    strict = parse("{'a': {'>= 2.0': {'value': 1}, '< 2.0': {'value': 0}}}")
    assert strict == Split("a", 2.0, Leaf(0), Leaf(1), strict=True)
    assert predict(strict, np.array([[2.0, 0, 0], [1.9, 0, 0]]), COLS).tolist() == [1.0, 0.0]
    swapped = parse("{'a': {'> 1': {'value': 1}, '<= 1': {'value': 0}}}")
    assert swapped == Split("a", 1.0, Leaf(0), Leaf(1))


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("{'a': {'<= 5': {'value': 0}, '> 4': {'value': 1}}}", "not complementary"),
        ("{'a': {'<= 5': {'value': 0}}}", "exactly two branches"),
        ("{'z': {'<= 5': {'value': 0}, '> 5': {'value': 1}}}", "unknown feature"),
        ("{'a': {'== 5': {'value': 0}, '> 5': {'value': 1}}}", "does not start"),
        ("{'a': {'<= x': {'value': 0}, '> x': {'value': 1}}}", "must be a number"),
        ("{'value': 'nan'}", "finite"),
        ("not a tree", "literal"),
        ("[1, 2]", "must be a dict"),
    ],
)
def test_invalid_trees_are_rejected_with_a_reason(text, fragment):
    with pytest.raises(TreeError, match=fragment):
        parse(text, feature_names=NAMES)


def test_depth_limit_and_repair():
    deep = "{'a': {'<= 1': {'b': {'<= 1': {'value': 0}, '> 1': {'value': 1}}}, '> 1': {'value': 1}}}"
    with pytest.raises(TreeError, match="exceeds max_depth"):
        parse(deep, max_depth=1)
    tree, status = parse_reply(deep[:-1], feature_names=NAMES, max_depth=2)  # the official repair: one '}'
    assert status == "repaired" and depth(tree) == 2
    tree, status = parse_reply("{'a': ", feature_names=NAMES, max_depth=2)
    assert tree is None and status.startswith("invalid")


def test_bad_input_types():
    with pytest.raises(TypeError, match="text"):
        parse(123)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="estimator"):
        from_sklearn(object(), NAMES)
    with pytest.raises(TreeError, match="features not in columns"):
        predict(Split("zz", 0.0, Leaf(0), Leaf(1)), np.zeros((2, 3)), COLS)
    with pytest.raises(ValueError, match="X"):
        predict(Leaf(0), np.full((2, 3), np.nan), COLS)
