"""Decision trees as LLEGO writes them, and their vectorised prediction.

The paper (Sec. 3; official code ``llego/custom/parsing_to_dict.py``, ``tree_validation.py``) writes a tree
as a nested dict: an internal node is ``{feature: {"<= θ": left, "> θ": right}}`` (the two keys must be
complementary: ``<=``/``>`` or ``<``/``>=``, with the same θ), a leaf is ``{"value": v}`` (class index or
regression value), thresholds printed with 4 decimals. A tree of depth d has at most d splits on any
root-to-leaf path (a stump has depth 1, a lone leaf depth 0). Leaf values are the LLM's own: trees are
never refit on data.

Here the same tree is a frozen :class:`Split` / :class:`Leaf` structure: ``Split(feature, threshold,
left, right, strict)`` sends a row left when ``x[feature] <= threshold`` (``strict``: ``<``), so the
``"> θ"`` / ``">= θ"`` key always names the right branch whatever order the text gives them in.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from paperkit import check_array, check_bool, check_int, check_number, check_strings

__all__ = [
    "Leaf",
    "Node",
    "Split",
    "TreeError",
    "depth",
    "features",
    "from_dict",
    "from_sklearn",
    "n_leaves",
    "parse",
    "parse_reply",
    "paths",
    "predict",
    "predict_many",
    "replace_at",
    "subtree",
    "to_dict",
    "to_text",
]


class TreeError(ValueError):
    """A text or dict that is not a valid tree (bad syntax, unknown feature, too deep, not complementary)."""


@dataclass(frozen=True)
class Leaf:
    """A leaf predicting ``value`` (class index for classification, real value for regression)."""

    value: float

    def __post_init__(self) -> None:
        check_number(self.value, "value")


@dataclass(frozen=True)
class Split:
    """``x[feature] <= threshold`` (``<`` when ``strict``) goes ``left``, otherwise ``right``."""

    feature: str
    threshold: float
    left: Node
    right: Node
    strict: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.feature, str):
            raise TypeError(f"feature must be a str, got {type(self.feature).__name__}")
        check_number(self.threshold, "threshold")
        check_node(self.left, "left")
        check_node(self.right, "right")
        check_bool(self.strict, "strict")


Node = Leaf | Split


def check_node(node: Any, name: str = "node") -> Node:
    """``node`` must be a :class:`Leaf` or :class:`Split` (TypeError naming ``name`` otherwise)."""
    if not isinstance(node, (Leaf, Split)):
        raise TypeError(f"{name} must be a Leaf or Split, got {type(node).__name__}")
    return node


def check_trees(trees: Any, name: str = "trees") -> list[Node]:
    """A sequence of trees (a lone tree is refused), as a list."""
    if isinstance(trees, (Leaf, Split, str)) or not isinstance(trees, Sequence):
        raise TypeError(f"{name} must be a sequence of trees, got {type(trees).__name__}")
    return [check_node(t, f"{name}[{i}]") for i, t in enumerate(trees)]


def _check_columns(node_features: set[str], columns: Any, n_cols: int) -> None:
    if not isinstance(columns, Mapping):
        raise TypeError(f"columns must be a mapping of feature name to column, got {type(columns).__name__}")
    missing = sorted(node_features - set(columns))
    if missing:
        raise TreeError(f"the tree uses features not in columns: {missing}")
    bad = {f: columns[f] for f in node_features if not 0 <= columns[f] < n_cols}
    if bad:
        raise ValueError(f"columns maps {bad} outside the {n_cols} columns of X")


def _names(feature_names: Any) -> frozenset[str] | None:
    if feature_names is None:
        return None
    return frozenset(check_strings(feature_names, "feature_names"))


def depth(node: Node) -> int:
    """Splits on the longest root-to-leaf path (0 for a leaf)."""
    check_node(node)
    if isinstance(node, Leaf):
        return 0
    return 1 + max(depth(node.left), depth(node.right))


def n_leaves(node: Node) -> int:
    return 1 if isinstance(node, Leaf) else n_leaves(node.left) + n_leaves(node.right)


def features(node: Node) -> set[str]:
    """The feature names the tree splits on."""
    check_node(node)
    if isinstance(node, Leaf):
        return set()
    return {node.feature} | features(node.left) | features(node.right)


def predict(node: Node, X: np.ndarray, columns: Mapping[str, int]) -> np.ndarray:
    """``(n,)`` float predictions for ``X: (n, p)``; ``columns`` maps a feature name to its column.

    Vectorised over rows: one boolean mask per split, so the cost is O(n · nodes) numpy work, not a
    Python loop over rows (the official code walks rows one by one with pandas).
    """
    X = np.asarray(check_array(X, "X", ndim=2), dtype=float)
    _check_columns(features(check_node(node)), columns, X.shape[1])
    return _predict(node, X, columns)


def _predict(node: Node, X: np.ndarray, columns: Mapping[str, int]) -> np.ndarray:
    out = np.empty(X.shape[0])
    stack: list[tuple[Node, np.ndarray]] = [(node, np.arange(X.shape[0]))]
    while stack:
        nd, idx = stack.pop()
        if isinstance(nd, Leaf):
            out[idx] = nd.value
            continue
        col = X[idx, columns[nd.feature]]
        go_left = col < nd.threshold if nd.strict else col <= nd.threshold
        stack.append((nd.left, idx[go_left]))
        stack.append((nd.right, idx[~go_left]))
    return out


def predict_many(trees: Sequence[Node], X: np.ndarray, columns: Mapping[str, int]) -> np.ndarray:
    """``(n_trees, n)`` predictions of every tree (the trees' functional signatures on ``X``)."""
    trees = check_trees(trees)
    X = np.asarray(check_array(X, "X", ndim=2), dtype=float)
    _check_columns(set().union(*map(features, trees)), columns, X.shape[1])
    if not trees:
        return np.zeros((0, X.shape[0]))
    return np.stack([_predict(t, X, columns) for t in trees])


def _fmt(x: float, precision: int) -> str:
    return f"{x:.{precision}f}"


def _leaf_value(v: float, precision: int) -> int | float:
    return int(v) if float(v).is_integer() else round(float(v), precision)


def to_dict(node: Node, precision: int = 4) -> dict[str, Any]:
    """The paper's nested-dict form (thresholds as ``"<= 12.3400"`` keys, leaves ``{"value": v}``)."""
    check_node(node)
    check_int(precision, "precision", low=0, high=17)
    if isinstance(node, Leaf):
        return {"value": _leaf_value(node.value, precision)}
    lo, hi = ("<", ">=") if node.strict else ("<=", ">")
    th = _fmt(node.threshold, precision)
    return {
        node.feature: {
            f"{lo} {th}": to_dict(node.left, precision),
            f"{hi} {th}": to_dict(node.right, precision),
        }
    }


def to_text(node: Node, precision: int = 4) -> str:
    """``str(to_dict(node))``: the text the paper's prompts carry between ``## ... ##``."""
    return str(to_dict(node, precision))


def _number(v: Any, what: str) -> float:
    if isinstance(v, bool):
        raise TreeError(f"{what} must be a number, got {v!r}")
    try:
        x = float(v)
    except (TypeError, ValueError):
        raise TreeError(f"{what} must be a number, got {v!r}") from None
    if not math.isfinite(x):
        raise TreeError(f"{what} must be finite, got {v!r}")
    return x


def _condition(key: Any) -> tuple[str, float]:
    if not isinstance(key, str):
        raise TreeError(f"a branch condition must be a string like '<= 1.5', got {key!r}")
    s = key.strip()
    for op in ("<=", ">=", "<", ">"):
        if s.startswith(op):
            return op, _number(s[len(op) :].strip(), f"threshold of {key!r}")
    raise TreeError(f"branch condition {key!r} does not start with one of <=, >, <, >=")


def _from_dict(d: Any, names: frozenset[str] | None) -> Node:
    if not isinstance(d, dict):
        raise TreeError(f"a node must be a dict, got {type(d).__name__}")
    if "value" in d:
        return Leaf(_number(d["value"], "leaf value"))
    if len(d) != 1:
        raise TreeError(f"an internal node must have exactly one feature key, got {list(d)!r}")
    feature, branches = next(iter(d.items()))
    if names is not None and feature not in names:
        raise TreeError(f"unknown feature {feature!r}")
    if not isinstance(branches, dict) or len(branches) != 2:
        raise TreeError(f"node {feature!r} must have exactly two branches")
    (k1, v1), (k2, v2) = branches.items()
    (op1, t1), (op2, t2) = _condition(k1), _condition(k2)
    pair = {op1, op2}
    if pair not in ({"<=", ">"}, {"<", ">="}) or t1 != t2:
        raise TreeError(f"conditions {k1!r} and {k2!r} of {feature!r} are not complementary")
    left, right = (v1, v2) if op1 in ("<=", "<") else (v2, v1)
    return Split(str(feature), t1, _from_dict(left, names), _from_dict(right, names), strict="<" in pair)


def from_dict(d: Any, *, feature_names: Sequence[str] | None = None, max_depth: int | None = None) -> Node:
    """Validate the paper's dict form and build the tree; :class:`TreeError` says what is wrong."""
    names = _names(feature_names)
    if max_depth is not None:
        check_int(max_depth, "max_depth", low=0)
    node = _from_dict(d, names)
    if max_depth is not None and depth(node) > check_int(max_depth, "max_depth", low=0):
        raise TreeError(f"tree depth {depth(node)} exceeds max_depth={max_depth}")
    return node


def parse(text: str, *, feature_names: Sequence[str] | None = None, max_depth: int | None = None) -> Node:
    """Parse the paper's text form (``## {...} ##`` markers optional); TreeError when it is not a tree."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    body = text.strip().strip("#").strip()
    try:
        d = ast.literal_eval(body)
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError) as err:
        raise TreeError(f"not a Python/JSON literal: {type(err).__name__}") from None
    return from_dict(d, feature_names=feature_names, max_depth=max_depth)


def parse_reply(text: str, *, feature_names: Sequence[str], max_depth: int) -> tuple[Node | None, str]:
    """``(tree or None, status)`` for one LLM reply: ``"ok"``, ``"repaired"`` (the official repair: a
    missing closing brace appended) or ``"invalid: <reason>"``. Never raises on bad text (only on a
    ``text`` that is not a str or bad ``feature_names`` / ``max_depth``)."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    check_strings(feature_names, "feature_names")
    check_int(max_depth, "max_depth", low=0)
    try:
        return parse(text, feature_names=feature_names, max_depth=max_depth), "ok"
    except TreeError as err:
        first = str(err)
    try:
        return parse(
            text.strip().strip("#").strip() + "}", feature_names=feature_names, max_depth=max_depth
        ), "repaired"
    except TreeError:
        return None, f"invalid: {first}"


def from_sklearn(estimator: Any, feature_names: Sequence[str]) -> Node:
    """A fitted sklearn ``DecisionTreeClassifier``/``Regressor`` as a tree (exact thresholds; classifier
    leaves predict ``classes_[argmax]``, regressor leaves the leaf mean), as the official RF init does."""
    t = getattr(estimator, "tree_", None)
    if t is None:
        raise TypeError("estimator must be a fitted sklearn DecisionTreeClassifier or DecisionTreeRegressor")
    names = check_strings(feature_names, "feature_names")
    if len(names) != estimator.n_features_in_:
        raise ValueError(f"feature_names has {len(names)} names for {estimator.n_features_in_} features")
    classes = getattr(estimator, "classes_", None)

    def build(i: int) -> Node:
        if t.children_left[i] == t.children_right[i]:
            v = t.value[i]
            value = float(classes[int(np.argmax(v[0]))]) if classes is not None else float(v[0][0])
            return Leaf(value)
        return Split(
            names[t.feature[i]], float(t.threshold[i]), build(t.children_left[i]), build(t.children_right[i])
        )

    return build(0)


def paths(node: Node, prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """Every node's path from the root (``()`` is the root; ``"l"``/``"r"`` steps), pre-order."""
    yield prefix
    if isinstance(node, Split):
        yield from paths(node.left, (*prefix, "l"))
        yield from paths(node.right, (*prefix, "r"))


def subtree(node: Node, path: Sequence[str]) -> Node:
    for step in path:
        if not isinstance(node, Split):
            raise ValueError(f"path {tuple(path)} goes below a leaf")
        node = node.left if step == "l" else node.right
    return node


def replace_at(node: Node, path: Sequence[str], new: Node) -> Node:
    """A copy of ``node`` with the subtree at ``path`` replaced by ``new`` (trees are immutable)."""
    if not path:
        return new
    if not isinstance(node, Split):
        raise ValueError(f"path {tuple(path)} goes below a leaf")
    if path[0] == "l":
        return Split(
            node.feature, node.threshold, replace_at(node.left, path[1:], new), node.right, node.strict
        )
    return Split(node.feature, node.threshold, node.left, replace_at(node.right, path[1:], new), node.strict)
