"""Conventional GP variation on trees (GATree's operators, official ``src/external/gatree/gatree/ga``).

- :func:`subtree_crossover`: copy tree a, pick a non-root node of it and put there a random non-root
  subtree of b (a lone leaf a is replaced by the subtree); the caller retries until the depth fits.
- :func:`point_mutation`: pick a node; a leaf changes its value or grows a random subtree; an internal
  node changes its feature (with a new threshold), its threshold, becomes a leaf, or is replaced by a
  random subtree (probability 1/4 each; GATree's ``mutate_operator``).
- :func:`random_tree`: a random tree of depth <= d whose thresholds are training values of the feature.

Thresholds come from ``values[feature]`` (the candidate thresholds of each feature, e.g. the training
values or the tiny LM's quantile bins) and leaf values from ``leaves`` (class indices, or real values).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from paperkit import check_array, check_int

from llego.tree import Leaf, Node, Split, check_node, depth, paths, replace_at, subtree

__all__ = ["point_mutation", "random_tree", "subtree_crossover", "varied"]


def _check_rng(rng: object) -> None:
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator (np.random.default_rng), got {type(rng).__name__}")


def random_tree(
    max_depth: int,
    values: Mapping[str, np.ndarray],
    leaves: np.ndarray,
    rng: np.random.Generator,
    p_leaf: float = 0.3,
) -> Node:
    """Grow a random tree: each node below the root is a leaf with probability ``p_leaf`` or at depth 0."""
    if max_depth <= 0:
        return Leaf(float(rng.choice(leaves)))
    names = list(values)
    f = names[int(rng.integers(len(names)))]
    th = float(rng.choice(values[f]))

    def child() -> Node:
        if rng.random() < p_leaf:
            return Leaf(float(rng.choice(leaves)))
        return random_tree(max_depth - 1, values, leaves, rng, p_leaf)

    return Split(f, th, child(), child())


def subtree_crossover(a: Node, b: Node, rng: np.random.Generator) -> Node:
    """One GATree crossover child of ``a`` and ``b`` (module docstring); the depth is not limited here."""
    check_node(a, "a")
    check_node(b, "b")
    _check_rng(rng)
    pa = [p for p in paths(a) if p]
    pb = [p for p in paths(b) if p] or [()]
    donor = subtree(b, pb[int(rng.integers(len(pb)))])
    if not pa:
        return donor
    return replace_at(a, pa[int(rng.integers(len(pa)))], donor)


def point_mutation(
    t: Node, values: Mapping[str, np.ndarray], leaves: np.ndarray, rng: np.random.Generator, max_depth: int
) -> Node:
    """One GATree mutation of ``t`` that keeps depth <= ``max_depth`` (module docstring)."""
    check_node(t, "t")
    check_int(max_depth, "max_depth", low=max(depth(t), 1))
    if not isinstance(values, Mapping) or not values:
        raise ValueError("values must be a non-empty mapping of feature name to candidate thresholds")
    for name, v in values.items():
        if np.asarray(check_array(v, f"values[{name!r}]", ndim=1)).size == 0:
            raise ValueError(f"values[{name!r}] is empty")
    if np.asarray(check_array(leaves, "leaves", ndim=1)).size == 0:
        raise ValueError("leaves is empty: give the leaf values to draw from")
    _check_rng(rng)
    all_paths = list(paths(t))
    path = all_paths[int(rng.integers(len(all_paths)))]
    node = subtree(t, path)
    room = max_depth - len(path)
    if isinstance(node, Leaf):
        if rng.random() < 0.5 or room <= 0:
            other = [v for v in leaves if v != node.value] or list(leaves)
            return replace_at(t, path, Leaf(float(rng.choice(other))))
        return replace_at(t, path, random_tree(room, values, leaves, rng))
    u = rng.random()
    if u < 0.25 or not path:
        f = [n for n in values if n != node.feature] or [node.feature]
        nf = f[int(rng.integers(len(f)))]
        new: Node = Split(nf, float(rng.choice(values[nf])), node.left, node.right, node.strict)
    elif u < 0.5:
        new = Split(node.feature, float(rng.choice(values[node.feature])), node.left, node.right, node.strict)
    elif u < 0.75:
        new = Leaf(float(rng.choice(leaves)))
    else:
        new = random_tree(max(room, 1), values, leaves, rng)
    return replace_at(t, path, new)


def varied(
    parents: Sequence[Node],
    rng: np.random.Generator,
    *,
    max_depth: int,
    values: Mapping[str, np.ndarray],
    leaves: np.ndarray,
    p_mutation: float = 0.2,
    tries: int = 50,
) -> Node:
    """A GP child of two distinct random ``parents``: crossover (retried until depth <= max_depth), then a
    mutation with probability ``p_mutation``; falls back to the first parent after ``tries`` misses."""
    i, j = rng.choice(len(parents), size=2, replace=len(parents) < 2)
    child = parents[int(i)]
    for _ in range(tries):
        c = subtree_crossover(parents[int(i)], parents[int(j)], rng)
        if depth(c) <= max_depth:
            child = c
            break
    if rng.random() < p_mutation:
        child = point_mutation(child, values, leaves, rng, max_depth)
    return child
